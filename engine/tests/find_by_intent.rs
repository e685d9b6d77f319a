//! find_by_intent answered from generations the real `kivgraph-compile` binary built from the Go
//! fixtures: ranking on realistic questions, the six guidance variants, argument errors, paging,
//! the three views and the candidate cap.

use crate::common::{compiler, workspace};

use std::path::PathBuf;
use std::process::Command;

use kivgraph::{Store, tools};
use kivgraph_format::IndexDir;
use serde_json::{Value, json};

/// A published generation of the given `(name, root)` repositories, and a store serving it.
struct Graph {
    _dir: tempfile::TempDir,
    store: Store,
}

fn compile(repos: &[(&str, PathBuf)]) -> Graph {
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(compiler());
    cmd.arg("--out").arg(dir.path());
    for (name, root) in repos {
        cmd.arg(format!("{name}={}", root.display()));
    }
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let store = Store::open(IndexDir::new(dir.path()));
    Graph { _dir: dir, store }
}

/// shapes and inventory, the two Go fixture modules.
fn fixtures() -> Graph {
    let go = workspace().join("fixtures/go");
    compile(&[
        ("shapes", go.join("shapes")),
        ("inventory", go.join("inventory")),
    ])
}

impl Graph {
    fn call(&self, args: Value) -> Result<Value, String> {
        tools::call("find_by_intent", &args, self.store.snapshot())
            .map(|text| serde_json::from_str(&text).unwrap())
            .map_err(|e| e.to_string())
    }

    fn ask(&self, args: Value) -> Value {
        self.call(args.clone())
            .unwrap_or_else(|e| panic!("{args} failed: {e}"))
    }

    fn error(&self, args: Value) -> String {
        match self.call(args.clone()) {
            Ok(v) => panic!("{args} answered {v}"),
            Err(e) => e,
        }
    }

    /// The qualified names of a compact or full page, in rank order.
    fn ranked(&self, args: Value) -> Vec<String> {
        qualified_names(&self.ask(args))
    }
}

fn qualified_names(answer: &Value) -> Vec<String> {
    answer["results"]["symbols"]
        .as_array()
        .unwrap_or_else(|| panic!("no symbols: {answer}"))
        .iter()
        .map(|r| r["qualified_name"].as_str().unwrap().to_string())
        .collect()
}

fn position(list: &[String], qn: &str) -> usize {
    list.iter()
        .position(|x| x == qn)
        .unwrap_or_else(|| panic!("{qn} is not in {list:?}"))
}

const KEYWORDS_ADVICE: &str = "keywords with the identifier words you would guess this code uses";

#[test]
fn realistic_questions_rank_the_symbols_they_name_first() {
    let g = fixtures();
    let circle = g.ask(json!({"intent": "compute the area of a circle"}));
    let rows = qualified_names(&circle);
    assert_eq!(rows[0], "Circle.Area", "{circle}");
    assert_eq!(
        circle["results"]["symbols"][0]["terms"],
        json!(["area", "circle"])
    );
    // The other Area methods rank, but below the one that carries both words.
    let all = g.ranked(json!({"intent": "compute the area of a circle", "limit": 50}));
    assert!(position(&all, "Rect.Area") > 0);
    // Test functions weigh less than the code they test, even with both words.
    assert!(position(&all, "TestCircleArea") > position(&all, "Rect.Area"));
    assert!(position(&all, "TestCircleArea") > position(&all, "Circle.Perimeter"));

    for (args, first) in [
        (json!({"intent": "add an item to the store"}), "Store.Add"),
        (json!({"intent": "create a new canvas"}), "NewCanvas"),
        (
            json!({"intent": "scale a circle by a factor"}),
            "Circle.Scale",
        ),
        (
            json!({"intent": "draw all the shapes on a canvas"}),
            "Canvas.DrawAll",
        ),
        (
            json!({"intent": "how is the perimeter of a rectangle computed", "keywords": ["Rect"]}),
            "Rect.Perimeter",
        ),
        (
            json!({"intent": "which products are running low", "keywords": ["LowStock"]}),
            "LowStock",
        ),
    ] {
        let got = g.ranked(args.clone());
        assert_eq!(
            got.first().map(String::as_str),
            Some(first),
            "{args}: {got:?}"
        );
    }

    // Same question, same order: ties break by stable key, never by chance.
    let q = json!({"intent": "store item", "limit": 50, "view": "full"});
    assert_eq!(g.ask(q.clone())["results"], g.ask(q)["results"]);

    // Narrowing picks which candidates are considered.
    let types = g.ask(json!({"intent": "circle shape", "kind": "type", "view": "full"}));
    let rows = types["results"]["symbols"].as_array().unwrap();
    assert!(
        !rows.is_empty() && rows.iter().all(|r| r["kind"] == "type"),
        "{types}"
    );
    let inventory = g.ask(json!({"intent": "string", "repo": "inventory", "view": "full"}));
    let rows = inventory["results"]["symbols"].as_array().unwrap();
    assert!(!rows.is_empty() && rows.iter().all(|r| r["repository"] == "inventory"));
    let measure = g.ask(json!({"intent": "circle", "path_prefix": "geo/measure", "view": "full"}));
    let rows = measure["results"]["symbols"].as_array().unwrap();
    assert!(
        !rows.is_empty()
            && rows
                .iter()
                .all(|r| r["file_path"].as_str().unwrap().starts_with("geo/measure")),
        "{measure}"
    );
}

#[test]
fn every_guidance_variant() {
    let g = fixtures();
    // (b) nothing to look up.
    let none = g.ask(json!({"intent": "x ? y !"}));
    assert_eq!(none["total"], 0);
    assert_eq!(
        none["guidance"],
        "this question folded to no term at all; single characters are not indexed, so ask with words"
    );
    assert_eq!(none["results"], json!({"symbols": []}));
    // (a) terms, but none in the graph.
    let prose = g.ask(json!({"intent": "zebra quokka"}));
    assert_eq!(
        prose["guidance"],
        "no word of this question appears in any name, qualified name, kind or path of the graph; the index holds no prose, so rephrase with the vocabulary the code would use, or pass keywords"
    );
    assert_eq!(
        prose["results"]["unmatched_terms"],
        json!(["zebra", "quokka"])
    );
    // (c) matches, all narrowed away.
    let narrowed = g.ask(json!({"intent": "circle area", "repo": "inventory"}));
    assert_eq!(
        narrowed["guidance"],
        "the terms matched symbols, but every one of them was excluded by repo, kind or path_prefix; widen the narrowing"
    );
    assert_eq!(
        g.ask(json!({"intent": "circle area", "kind": "struct"}))["guidance"],
        narrowed["guidance"]
    );
    // (d) truncated, no keywords.
    let page = g.ask(json!({"intent": "compute the area of a circle"}));
    assert_eq!(page["returned"], 10);
    assert_eq!(page["truncated"], true);
    assert_eq!(
        page["guidance"],
        format!(
            "showing 10 of {}; narrow with {KEYWORDS_ADVICE}, or repo, kind or path_prefix, or pass the cursor for the next page",
            page["total"]
        )
    );
    // (e) truncated with keywords.
    let page = g.ask(json!({"intent": "compute the area of a circle", "keywords": ["Area"]}));
    assert_eq!(
        page["guidance"],
        format!(
            "showing 10 of {}; narrow with repo, kind or path_prefix, or ask with view=files first, or pass the cursor for the next page",
            page["total"]
        )
    );
    // (f) complete, but some words matched nothing.
    let partial = g.ask(json!({"intent": "how is the perimeter of a rectangle computed"}));
    assert!(partial.get("truncated").is_none(), "{partial}");
    assert_eq!(
        partial["results"]["unmatched_terms"],
        json!(["how", "is", "the", "of", "rectangle", "computed"])
    );
    let unmatched = "some words of this question appear in no name, qualified name, kind or path of the graph (see unmatched_terms), so the ranking rests on the others";
    assert_eq!(
        partial["guidance"],
        format!("{unmatched}; pass {KEYWORDS_ADVICE}")
    );
    let with_keywords = g.ask(
        json!({"intent": "how is the perimeter of a rectangle computed", "keywords": ["Perimeter"]}),
    );
    assert_eq!(with_keywords["guidance"], unmatched);
    // A complete page whose every word matched carries no guidance.
    let clean = g.ask(json!({"intent": "perimeter"}));
    assert!(clean["total"].as_u64().unwrap() > 0);
    assert!(clean.get("guidance").is_none(), "{clean}");

    // Never a completeness verdict, and no coverage counter but zeros.
    for answer in [&none, &prose, &narrowed, &page, &partial, &clean] {
        assert!(answer.get("completeness").is_none(), "{answer}");
        assert!(answer.get("coverage").is_none(), "{answer}");
    }
    let full = g.ask(json!({"intent": "perimeter", "view": "full"}));
    assert_eq!(
        full["coverage"],
        json!({"exact": 0, "candidate": 0, "unresolved_related": 0, "package_level": 0})
    );
    assert!(full.get("completeness").is_none());
}

#[test]
fn argument_errors() {
    let g = fixtures();
    let invalid = |args: Value, message: &str| {
        assert_eq!(g.error(args), format!("INVALID_ARGUMENT: {message}"));
    };
    invalid(json!({}), "intent is required");
    invalid(json!({"intent": 3}), "intent must be a string");
    invalid(json!({"intent": " \t\n "}), "intent must not be empty");
    let long = "circle area ".repeat(33) + "rect"; // 400 bytes
    assert_eq!(long.len(), 400);
    g.ask(json!({"intent": long}));
    g.ask(json!({"intent": format!("   {long}   ")}));
    invalid(
        json!({"intent": long + "s"}),
        "intent is a question, not a document; shorten it and pass the vocabulary as keywords",
    );
    let seventeen: Vec<String> = (0..17).map(|i| format!("word{i}")).collect();
    g.ask(json!({"intent": "circle", "keywords": seventeen[..16]}));
    invalid(
        json!({"intent": "circle", "keywords": seventeen}),
        "keywords holds at most 16 entries",
    );
    for bad in [json!([""]), json!(["Area", "  "])] {
        invalid(
            json!({"intent": "circle", "keywords": bad}),
            "keywords must not contain empty or whitespace-only entries",
        );
    }
    for bad in [json!("Area"), json!([1]), json!({"a": "b"})] {
        invalid(
            json!({"intent": "circle", "keywords": bad}),
            "keywords must be an array of strings",
        );
    }
    for field in ["repo", "path_prefix", "kind"] {
        let mut args = json!({"intent": "circle"});
        args[field] = json!(" geo ");
        invalid(
            args,
            &format!("{field} must not carry surrounding whitespace"),
        );
    }
    assert_eq!(
        g.error(json!({"intent": "circle", "repo": "nowhere"})),
        "REPOSITORY_NOT_FOUND: repository \"nowhere\" is not in the published graph"
    );
    invalid(
        json!({"intent": "circle", "limit": 51}),
        "limit must be between 1 and 50",
    );
    invalid(
        json!({"intent": "circle", "limit": -1}),
        "limit must be between 1 and 50",
    );
    assert_eq!(
        g.ask(json!({"intent": "circle", "limit": 0}))["returned"],
        10
    );
    assert_eq!(
        g.ask(json!({"intent": "circle", "limit": 50}))["total"],
        g.ask(json!({"intent": "circle"}))["total"]
    );
    invalid(
        json!({"intent": "circle", "view": "grouped"}),
        "view \"grouped\" is unsupported, use \"compact\", \"full\" or \"files\"",
    );
    invalid(
        json!({"intent": "circle", "response_format": "verbose"}),
        "response_format \"verbose\" is unsupported, use \"concise\" or \"detailed\"",
    );
    invalid(
        json!({"intent": "circle", "name": "Area"}),
        "argument \"name\" is not accepted by this tool",
    );
    assert!(
        g.error(json!({"intent": "circle", "cursor": "not-a-cursor"}))
            .starts_with("CURSOR_INVALID: ")
    );
}

/// Walks every page of a question with `limit`, returning the rows (or files) in order.
fn all_pages(g: &Graph, args: &Value, list: &str, limit: u64) -> Vec<Value> {
    let mut out = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let mut a = args.clone();
        a["limit"] = json!(limit);
        if let Some(c) = &cursor {
            a["cursor"] = json!(c);
        }
        let page = g.ask(a);
        let rows = page["results"][list].as_array().unwrap();
        assert!(rows.len() as u64 <= limit);
        out.extend(rows.iter().cloned());
        match page.get("next_cursor").and_then(Value::as_str) {
            Some(c) => {
                assert_eq!(page["truncated"], true);
                cursor = Some(c.to_string());
            }
            None => return out,
        }
    }
}

#[test]
fn paging_through_every_page_equals_one_call() {
    let g = fixtures();
    for (args, list) in [
        (
            json!({"intent": "add an item to the store", "view": "full"}),
            "symbols",
        ),
        (
            json!({"intent": "store item", "keywords": ["Restock"], "view": "full", "repo": "inventory"}),
            "symbols",
        ),
        (
            json!({"intent": "add an item to the store", "view": "files"}),
            "files",
        ),
    ] {
        let mut whole = args.clone();
        whole["limit"] = json!(50);
        let whole = g.ask(whole);
        let total = whole["total"].as_u64().unwrap();
        assert!(total > 3 && total <= 50, "{whole}");
        assert_eq!(whole["returned"], total);
        let rows = whole["results"][list].as_array().unwrap().clone();
        for limit in [1, 3, 7] {
            assert_eq!(all_pages(&g, &args, list, limit), rows, "{args} by {limit}");
        }
    }

    // The cursor belongs to the question: another keyword, repo, kind or prefix refuses it.
    let first = g.ask(json!({"intent": "add an item to the store", "limit": 3}));
    let cursor = first["next_cursor"].as_str().unwrap();
    for changed in [
        json!({"intent": "add an item to the store", "keywords": ["Add"]}),
        json!({"intent": "add an item to a store"}),
        json!({"intent": "add an item to the store", "repo": "inventory"}),
        json!({"intent": "add an item to the store", "kind": "method"}),
        json!({"intent": "add an item to the store", "path_prefix": "store"}),
    ] {
        let mut a = changed;
        a["cursor"] = json!(cursor);
        assert_eq!(
            g.error(a),
            "CURSOR_INVALID: cursor does not match the active query"
        );
    }
    // View, limit and response format are not part of it, and the intent is trimmed first.
    let next = g.ask(json!({"intent": "  add an item to the store ", "cursor": cursor, "limit": 2, "view": "full", "response_format": "detailed"}));
    let all = g.ranked(json!({"intent": "add an item to the store", "limit": 50}));
    assert_eq!(qualified_names(&next), all[3..5]);
}

#[test]
fn files_view_lists_the_files_to_open() {
    let g = fixtures();
    let files =
        g.ask(json!({"intent": "compute the area of a circle", "view": "files", "limit": 50}));
    let list = files["results"]["files"].as_array().unwrap();
    assert_eq!(files["total"], list.len());
    assert_eq!(list[0]["file"], "geo/geo.go");
    assert_eq!(list[0]["repo"], "shapes");
    assert_eq!(list[0]["symbols"][0], "Circle.Area@60-62");
    // Every ranked symbol appears once, under its file, in rank order.
    let full =
        g.ask(json!({"intent": "compute the area of a circle", "view": "full", "limit": 50}));
    let rows = full["results"]["symbols"].as_array().unwrap();
    let labelled: usize = list
        .iter()
        .map(|f| f["symbols"].as_array().unwrap().len())
        .sum();
    assert_eq!(labelled, rows.len());
    for f in list {
        let in_file: Vec<String> = rows
            .iter()
            .filter(|r| r["file_path"] == f["file"] && r["repository"] == f["repo"])
            .map(|r| {
                let (s, e) = (
                    r["start_line"].as_u64().unwrap(),
                    r["end_line"].as_u64().unwrap(),
                );
                let qn = r["qualified_name"].as_str().unwrap();
                if s == e {
                    format!("{qn}@{s}")
                } else {
                    format!("{qn}@{s}-{e}")
                }
            })
            .collect();
        assert_eq!(f["symbols"], json!(in_file), "{f}");
    }
    // `limit` and `total` count files.
    let page =
        g.ask(json!({"intent": "compute the area of a circle", "view": "files", "limit": 2}));
    assert_eq!(page["returned"], 2);
    assert_eq!(page["total"], list.len());
    assert_eq!(page["results"]["files"], json!(list[..2]));
    assert_eq!(
        page["guidance"],
        format!(
            "showing 2 of {}; narrow with {KEYWORDS_ADVICE}, or repo, kind or path_prefix, or pass the cursor for the next page",
            list.len()
        )
    );
    let page = g.ask(json!({"intent": "compute the area of a circle", "keywords": ["Area"], "view": "files", "limit": 2}));
    assert!(
        page["guidance"].as_str().unwrap().ends_with(
            "narrow with repo, kind or path_prefix, or pass the cursor for the next page"
        ),
        "{page}"
    );
    assert_eq!(
        page["results"]["terms"],
        json!([{"term": "area", "symbols": 8, "frequency": "common"}, {"term": "circle", "symbols": 12, "frequency": "common"}])
    );
}

#[test]
fn full_and_compact_views_spell_the_same_rows() {
    let g = fixtures();
    let q = json!({"intent": "restock the store", "limit": 50});
    let mut full_args = q.clone();
    full_args["view"] = json!("full");
    full_args["response_format"] = json!("detailed");
    let full = g.ask(full_args);
    let compact = g.ask(q);
    assert_eq!(full["total"], compact["total"]);
    let frows = full["results"]["symbols"].as_array().unwrap();
    let crows = compact["results"]["symbols"].as_array().unwrap();
    assert_eq!(frows.len(), crows.len());
    assert_eq!(full["results"]["unmatched_terms"], json!(["the"]));
    assert_eq!(compact["results"]["unmatched_terms"], json!(["the"]));
    // Every row is in the header's repository, so compact states it once; kinds vary.
    assert_eq!(compact["results"]["match"], "lexical");
    assert_eq!(compact["results"]["repository"], "inventory");
    assert!(compact["results"].get("kind").is_none());
    for (f, c) in frows.iter().zip(crows) {
        for k in [
            "name",
            "qualified_name",
            "kind",
            "repository",
            "file_path",
            "start_line",
            "end_line",
            "terms",
            "match",
            "stable_key",
        ] {
            assert!(f.get(k).is_some(), "full row lacks {k}: {f}");
        }
        assert_eq!(f["match"], "lexical");
        assert_eq!(f["qualified_name"], c["qualified_name"]);
        assert_eq!(f["kind"], c["kind"]);
        assert_eq!(f["terms"], c["terms"]);
        assert_eq!(f["start_line"], c["start_line"]);
        assert!(
            c.get("match").is_none()
                && c.get("repository").is_none()
                && c.get("stable_key").is_none()
        );
        // `name` shows only when the qualified name does not end with it.
        assert_eq!(
            c.get("name").is_some(),
            !f["qualified_name"]
                .as_str()
                .unwrap()
                .ends_with(f["name"].as_str().unwrap())
        );
        assert_eq!(
            c.get("end_line").is_some(),
            f["end_line"] != f["start_line"]
        );
        // The stable key is the symbol's own.
        let key = f["stable_key"].as_str().unwrap();
        let sym = tools::call(
            "get_symbol",
            &json!({"stable_key": key}),
            g.store.snapshot(),
        )
        .unwrap();
        assert!(
            sym.contains(&format!("\"qualified_name\":{}", f["qualified_name"])),
            "{sym}"
        );
    }
    // Rows in several repositories keep their repository.
    let across = g.ask(json!({"intent": "string", "limit": 50}));
    assert!(across["results"].get("repository").is_none());
    let repos: std::collections::BTreeSet<&str> = across["results"]["symbols"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["repository"].as_str().unwrap())
        .collect();
    assert_eq!(
        repos.into_iter().collect::<Vec<_>>(),
        ["inventory", "shapes"]
    );
}

#[test]
fn compact_answer_snapshot() {
    let g = fixtures();
    let answer = g.ask(json!({"intent": "compute the area of a circle", "limit": 5}));
    insta::assert_snapshot!(
        "find_by_intent_compact",
        serde_json::to_string_pretty(&answer).unwrap()
    );
}

#[test]
fn candidate_set_saturates_at_four_thousand() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("widgets");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(
        root.join("go.mod"),
        "module example.com/widgets\n\ngo 1.22\n",
    )
    .unwrap();
    let mut src = String::from("package widgets\n\n");
    for i in 0..4100 {
        src.push_str(&format!("func Widget{i:04}() {{}}\n"));
    }
    std::fs::write(root.join("widgets.go"), src).unwrap();
    let g = compile(&[("widgets", root)]);
    let answer = g.ask(json!({"intent": "which widget"}));
    assert_eq!(answer["total"], 4000);
    assert_eq!(answer["returned"], 10);
    assert_eq!(
        answer["results"]["terms"],
        json!([{"term": "widget", "symbols": 4100, "frequency": "most of the graph, so it separated little"}])
    );
    // Equal scores fall back to stable-key order, which is the symbol id order.
    let full = g.ask(json!({"intent": "which widget", "view": "full", "response_format": "detailed", "limit": 50}));
    let keys: Vec<&str> = full["results"]["symbols"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["stable_key"].as_str().unwrap())
        .collect();
    assert!(keys.windows(2).all(|w| w[0] < w[1]), "{keys:?}");
    let files = g.ask(json!({"intent": "which widget", "view": "files"}));
    assert_eq!(files["total"], 1);
    assert_eq!(
        files["results"]["files"][0]["symbols"]
            .as_array()
            .unwrap()
            .len(),
        4000
    );
}

/// Checklist item 144: find_by_intent exists for "I do not know its name; which files do I open"
/// and takes `keywords`.
#[test]
fn item_144_find_by_intent_answers_which_files_to_open_and_takes_keywords() {
    let tool = kivgraph::tools::QUERY_TOOLS
        .iter()
        .find(|t| t.name == "find_by_intent")
        .expect("registered");
    assert!(tool.description.contains("files to open"));
    assert!((tool.schema)()["properties"].get("keywords").is_some());
    let g = fixtures();
    let v = g.ask(serde_json::json!({"intent": "which files hold the shapes", "keywords": ["circle", "area"], "view": "files"}));
    assert!(!v["results"]["files"].as_array().unwrap().is_empty(), "{v}");
}

/// A question that thousands of symbols match: the ranking keeps the best `CANDIDATE_CAP`, each
/// with the score its definition gives — the sum of its terms' weights, times its kind's weight,
/// 1.5 when exported, its path class's weight and its caller weight, read here from the
/// symbol's record, its file's path and its incoming edges, not from the compiler's priors — in
/// (score descending, id ascending) order, and every candidate left out ranks after the last
/// one kept.
#[test]
fn the_best_candidates_of_a_broad_question_are_the_ones_their_definition_ranks_first() {
    use kivgraph::query::intent::{
        self, CANDIDATE_CAP, IntentQuery, caller_weight, kind_weight, path_weight,
    };
    use kivgraph_format::terms::{self, path_class};
    let src = tempfile::tempdir().unwrap();
    std::fs::write(
        src.path().join("go.mod"),
        "module example.com/wide\n\ngo 1.21\n",
    )
    .unwrap();
    // 12,000 symbols carry "thing", nine in ten of them functions that also carry "handle";
    // export, path class and callers vary, so scores have many levels close together.
    for p in 0..40 {
        let dir = src.path().join(if p % 5 == 0 {
            format!("internal/p{p}")
        } else {
            format!("p{p}")
        });
        std::fs::create_dir_all(&dir).unwrap();
        let mut text = format!("package p{p}\n\n");
        for i in 0..300 {
            let exported = if i % 2 == 0 { "H" } else { "h" };
            if i % 10 == 9 {
                text += &format!("type Thing{i} struct{{}}\n");
                continue;
            }
            // Each calls up to seven of the ones before it: callers from 0 to 7.
            let calls: String = (1..=i % 8)
                .map(|m| i - m)
                .filter(|k| k % 10 != 9)
                .map(|k| {
                    let e = if k % 2 == 0 { "H" } else { "h" };
                    format!("{e}andleThing{k}(); ")
                })
                .collect();
            text += &format!("func {exported}andleThing{i}() {{ {calls}}}\n");
        }
        std::fs::write(dir.join("things.go"), text).unwrap();
    }
    let graph = compile(&[("wide", src.path().to_path_buf())]);
    let g = graph.store.snapshot().unwrap();
    let q = IntentQuery {
        intent: "handle the thing".into(),
        ..Default::default()
    };
    let answer = intent::find_by_intent(&g, &q).unwrap();
    assert!(
        answer.matched > 2 * CANDIDATE_CAP as u64,
        "{}",
        answer.matched
    );
    assert_eq!(answer.hits.len(), CANDIDATE_CAP);

    // The definition, from records, paths and edges.
    let b = g.graph();
    let corpus = b.symbols.len() as f64;
    let mut expected: Vec<(f64, u32)> = Vec::new();
    for (id, s) in b.symbols.iter().enumerate() {
        let st = &b.strings;
        let kind = kivgraph_format::SymbolKind::from_code(s.kind)
            .unwrap()
            .as_str();
        let path = st.get(b.files[s.file.to_native() as usize].path.to_native());
        let carried = terms::symbol_terms(
            st.get(s.name.to_native()),
            st.get(s.qualified_name.to_native()),
            kind,
            path,
        );
        let mut base = 0.0;
        let mut any = false;
        for t in &answer.terms {
            if carried.contains(&t.key) {
                base += (1.0 - f64::from(t.symbols) / corpus).max(1e-9);
                any = true;
            }
        }
        if !any {
            continue;
        }
        let callers = b
            .reverse
            .row(id as u32)
            .iter()
            .filter(|e| {
                kivgraph_format::EdgeKind::from_code(e.kind)
                    .is_some_and(kivgraph_format::EdgeKind::is_reference)
            })
            .count();
        let score = base
            * kind_weight(kind)
            * if s.exported { 1.5 } else { 1.0 }
            * path_weight(path_class(path))
            * caller_weight(callers);
        expected.push((score, id as u32));
    }
    assert_eq!(expected.len() as u64, answer.matched);
    expected.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let got: Vec<(f64, u32)> = answer.hits.iter().map(|h| (h.score, h.id)).collect();
    assert_eq!(got, expected[..CANDIDATE_CAP].to_vec());
}
