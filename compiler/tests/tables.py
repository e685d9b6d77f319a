#!/usr/bin/env python3
"""Reads every Parquet table of a kivgraph generation with pyarrow and DuckDB.

Usage: tables.py GENERATION_DIR

Run by `cargo test -p kivgraph-compile --test integration generation::` (test
`tables_read_with_pyarrow_and_duckdb`); needs `pyarrow` and `duckdb`
(`.ci/run`, or `python3 -m venv .venv && .venv/bin/pip install pyarrow duckdb`).
Exits non-zero on the first failed check.
"""

import json
import sys
from pathlib import Path

import duckdb
import pyarrow.parquet as pq

# manifest.json `row_counts` key -> table file stem.
TABLES = [
    "repositories",
    "packages",
    "files",
    "symbols",
    "edges",
    "package_edges",
    "unresolved",
]

TOP_REFERENCED = """\
SELECT s.qualified_name, s.kind, s.repository, s.file_path, count(*) AS refs
FROM 'DIR/edges.parquet' e JOIN 'DIR/symbols.parquet' s ON s.stable_key = e.target_key
WHERE e.kind NOT IN ('METHOD_OF', 'DEFINES', 'CONTAINS_FILE', 'CONTAINS_PACKAGE')
GROUP BY ALL ORDER BY refs DESC, s.qualified_name LIMIT 10;
"""

UNRESOLVED_BY_REASON = """\
SELECT reason, count(*) AS n, count(DISTINCT requested_package) AS packages
FROM 'DIR/unresolved.parquet' GROUP BY reason ORDER BY n DESC;
"""


class CheckFailed(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise CheckFailed(msg)


def check_tables(gen: Path) -> None:
    manifest = json.loads((gen / "manifest.json").read_text())
    row_counts = manifest["row_counts"]
    check(
        sorted(row_counts) == sorted(TABLES),
        f"manifest row_counts keys {sorted(row_counts)} are not {sorted(TABLES)}",
    )
    found = sorted(p.stem for p in gen.glob("*.parquet"))
    check(found == sorted(TABLES), f"parquet files {found} are not {sorted(TABLES)}")

    for stem in TABLES:
        path = gen / f"{stem}.parquet"
        pf = pq.ParquetFile(path)
        meta = pf.metadata
        kv = {k.decode(): v.decode() for k, v in (meta.metadata or {}).items()}
        want = str(manifest["format_version"])
        check(
            kv.get("kivgraph.format_version") == want,
            f"{path.name}: kivgraph.format_version is {kv.get('kivgraph.format_version')!r}, want {want!r} (the manifest's)",
        )
        check(
            kv.get("kivgraph.table") == stem,
            f"{path.name}: kivgraph.table is {kv.get('kivgraph.table')!r}, want {stem!r}",
        )
        table = pq.read_table(path)
        check(
            table.num_rows == meta.num_rows,
            f"{path.name}: read {table.num_rows} rows, footer says {meta.num_rows}",
        )
        check(
            table.num_rows == row_counts[stem],
            f"{path.name}: {table.num_rows} rows but manifest.json row_counts.{stem} is {row_counts[stem]}",
        )
        chunks = 0
        for rg in range(meta.num_row_groups):
            group = meta.row_group(rg)
            for c in range(group.num_columns):
                col = group.column(c)
                chunks += 1
                check(
                    col.compression == "ZSTD",
                    f"{path.name}: row group {rg} column {col.path_in_schema} is {col.compression}, want ZSTD",
                )
        check(
            table.num_rows == 0 or chunks > 0,
            f"{path.name}: {table.num_rows} rows but no column chunks",
        )
        print(f"{path.name}: {table.num_rows} rows, {meta.num_row_groups} row group(s), zstd")

    symbols = pq.read_table(gen / "symbols.parquet", columns=["stable_key"])
    keys = symbols.column("stable_key").to_pylist()
    check(len(keys) > 0, "symbols.parquet is empty")
    bad = [k for k in keys if not isinstance(k, str) or len(k) != 26]
    check(not bad, f"symbols.stable_key not 26-char strings: {bad[:5]}")
    key_set = set(keys)
    check(
        len(key_set) == len(keys),
        f"symbols.stable_key has {len(keys) - len(key_set)} duplicate(s)",
    )

    edges = pq.read_table(gen / "edges.parquet", columns=["source_key", "target_key"])
    check(edges.num_rows > 0, "edges.parquet is empty")
    for column in ("source_key", "target_key"):
        missing = sorted({k for k in edges.column(column).to_pylist() if k not in key_set})
        check(not missing, f"edges.{column} not in symbols.stable_key: {missing[:5]}")


def run_queries(gen: Path) -> None:
    con = duckdb.connect()
    directory = gen.resolve().as_posix()

    sql = TOP_REFERENCED.replace("DIR", directory)
    top = con.execute(sql).fetchall()
    print("most referenced symbols:")
    for row in top:
        print("  ", row)
    check(len(top) == 10, f"top-referenced query returned {len(top)} rows, want 10")
    check(all(row[4] > 0 for row in top), f"top-referenced query has a refs <= 0: {top}")

    sql = UNRESOLVED_BY_REASON.replace("DIR", directory)
    reasons = con.execute(sql).fetchall()
    print("unresolved by reason:")
    for row in reasons:
        print("  ", row)
    seen = {row[0] for row in reasons}
    for want in ("STDLIB_NOT_INDEXED", "PACKAGE_NOT_BUILDABLE"):
        check(want in seen, f"unresolved reasons {sorted(seen)} lack {want}")


def main(argv) -> int:
    if len(argv) != 2:
        print(f"usage: {argv[0]} GENERATION_DIR", file=sys.stderr)
        return 2
    gen = Path(argv[1])
    if not (gen / "manifest.json").is_file():
        print(f"{gen}: no manifest.json; not a generation directory", file=sys.stderr)
        return 2
    try:
        check_tables(gen)
        run_queries(gen)
    except CheckFailed as e:
        print(f"tables.py: FAILED: {e}", file=sys.stderr)
        return 1
    print("tables.py: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
