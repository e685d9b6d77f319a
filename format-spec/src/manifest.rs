//! `manifest.json`: what a generation holds and the digest of every file in it.

use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    pub format_version: u32,
    pub generation_id: u64,
    /// RFC 3339, UTC.
    pub created_at: String,
    /// Milliseconds since the Unix epoch, the same instant as `created_at`.
    pub created_at_ms: u64,
    pub compiler_version: String,
    pub repositories: Vec<ManifestRepository>,
    pub row_counts: RowCounts,
    /// Tallies over all edges and failures, so that a reader reports them without reading
    /// every row.
    pub tallies: Tallies,
    /// Every file of the generation but the manifest itself, sorted by name.
    pub files: Vec<ManifestFile>,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ManifestRepository {
    pub name: String,
    pub root: String,
    pub commit: Option<String>,
    pub branch: Option<String>,
    pub dirty: Option<bool>,
    pub languages: Vec<String>,
}

#[derive(Serialize, Deserialize, Debug, Clone, Default, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct RowCounts {
    pub repositories: u64,
    pub packages: u64,
    pub files: u64,
    pub symbols: u64,
    pub edges: u64,
    pub package_edges: u64,
    pub unresolved: u64,
}

/// Counts over every edge and every unresolved record (SPEC 2).
#[derive(Serialize, Deserialize, Debug, Clone, Default, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Tallies {
    /// Edges that record an occurrence (a file).
    pub evidence: u64,
    /// Edges by kind (wire name), kinds with none left out.
    pub edges_by_kind: std::collections::BTreeMap<String, u64>,
    /// Unresolved records by reason.
    pub unresolved_by_reason: std::collections::BTreeMap<String, u64>,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ManifestFile {
    pub name: String,
    pub size: u64,
    /// xxh3-128 of the file bytes, 32 lowercase hex digits.
    pub xxh3_128: String,
}

/// The digest string the manifest records for `bytes`.
pub fn digest_hex(bytes: &[u8]) -> String {
    format!("{:032x}", xxhash_rust::xxh3::xxh3_128(bytes))
}

/// Formats seconds since the epoch as RFC 3339 UTC.
pub fn rfc3339(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Civil-from-days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Parses the `YYYY-MM-DDTHH:MM:SSZ` form [`rfc3339`] writes back into seconds.
pub fn parse_rfc3339_secs(s: &str) -> Option<u64> {
    let b = s.as_bytes();
    if b.len() != 20
        || b[4] != b'-'
        || b[7] != b'-'
        || b[10] != b'T'
        || b[13] != b':'
        || b[16] != b':'
        || b[19] != b'Z'
    {
        return None;
    }
    let num = |r: std::ops::Range<usize>| s.get(r)?.parse::<i64>().ok();
    let (y, m, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (hh, mm, ss) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) || hh > 23 || mm > 59 || ss > 59 {
        return None;
    }
    // Days-from-civil (Howard Hinnant's algorithm).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let secs = days * 86_400 + hh * 3600 + mm * 60 + ss;
    (secs >= 0 && rfc3339(secs as u64) == s).then_some(secs as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_round_trips() {
        for secs in [0u64, 951_782_400, 1_795_000_000, 4_102_444_799] {
            assert_eq!(parse_rfc3339_secs(&rfc3339(secs)), Some(secs));
        }
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(parse_rfc3339_secs("2000-02-30T00:00:00Z"), None);
        assert_eq!(parse_rfc3339_secs("2000-02-29T00:00:00"), None);
    }
}
