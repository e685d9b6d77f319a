"""The README's queries, and a query of the consumers across repositories, on a generation's
tables and on their export partitioned by repository (`kivgraph-compile export`), with DuckDB
and, where pyspark is installed, with Spark in local mode: every engine and layout gives the
same rows, and a filter on the partition column reads only that repository's files.

Usage: hive.py GENERATION_DIR EXPORT_DIR [--require-spark]
Exit status 0 when every check holds; the output says whether Spark ran.
"""

import sys
from pathlib import Path

import duckdb

TABLES = ["repositories", "packages", "files", "symbols", "edges", "package_edges", "unresolved"]

# The README's two queries, with {edges}, {symbols} and {unresolved} for their sources.
QUERIES = {
    "most referenced": """
        SELECT s.qualified_name, s.kind, s.repository, s.file_path, count(*) AS refs
        FROM {edges} e
        JOIN {symbols} s ON s.stable_key = e.target_key
        WHERE e.kind NOT IN ('METHOD_OF', 'DEFINES', 'CONTAINS_FILE', 'CONTAINS_PACKAGE')
        GROUP BY ALL ORDER BY refs DESC, s.qualified_name LIMIT 10""",
    "unresolved by reason": """
        SELECT reason, count(*) AS n, count(DISTINCT requested_package) AS packages
        FROM {unresolved} GROUP BY reason ORDER BY n DESC""",
    "consumers across repositories": """
        SELECT t.repository AS provider, t.qualified_name AS used, s.repository AS consumer,
               e.kind AS kind, count(*) AS uses
        FROM {edges} e
        JOIN {symbols} t ON t.symbol_id = e.target_id
        JOIN {symbols} s ON s.symbol_id = e.source_id
        WHERE s.repository <> t.repository
        GROUP BY ALL ORDER BY uses DESC, used, consumer, kind""",
}


def check(cond, msg):
    if not cond:
        print(f"FAIL: {msg}")
        sys.exit(1)


def canonical(rows):
    """Rows as sorted tuples of plain values (ties of an ORDER BY may come in any order)."""
    return sorted(tuple(str(v) for v in r) for r in rows)


def data_read(con, q):
    """The bytes DuckDB's profile says a query read."""
    text = "\n".join(str(r[1]) for r in con.execute("EXPLAIN ANALYZE " + q).fetchall())
    for line in text.splitlines():
        if "Data Read:" in line:
            value, unit = line.split("Data Read:")[1].strip(" │").split()[:2]
            scale = {"bytes": 1, "B": 1, "kB": 1e3, "KB": 1e3, "MB": 1e6, "GB": 1e9}[unit]
            return float(value) * scale
    check(False, f"no Data Read in the profile of {q}: {text}")


def duckdb_runs(gen: Path, hive: Path):
    con = duckdb.connect()
    flat = {t: f"'{gen / (t + '.parquet')}'" for t in TABLES}
    part = {t: f"read_parquet('{hive / t}/*/*.parquet', hive_partitioning = true)" for t in TABLES}
    out = {}
    for name, q in QUERIES.items():
        a = con.sql(q.format(**flat)).fetchall()
        b = con.sql(q.format(**part)).fetchall()
        check(canonical(a) == canonical(b), f"duckdb {name}: flat {a} != partitioned {b}")
        out[name] = a
        print(f"duckdb {name}: {len(a)} rows, the same on both layouts")
    # Every table: the same rows, and each partition holds exactly its repository's rows.
    for t in TABLES:
        a = con.execute(f"SELECT count(*) FROM {flat[t]}").fetchall()[0][0]
        b = con.execute(f"SELECT count(*) FROM {part[t]}").fetchall()[0][0]
        check(a == b, f"{t}: {a} rows flat, {b} partitioned")
    for (repo,) in con.sql(f"SELECT name FROM {flat['repositories']}").fetchall():
        want = con.execute(
            f"SELECT count(*) FROM {flat['edges']} e JOIN {flat['symbols']} s "
            f"ON s.symbol_id = e.source_id WHERE s.repository = ?",
            [repo],
        ).fetchall()[0][0]
        got = con.execute(f"SELECT count(*) FROM {part['edges']} WHERE repo = ?", [repo]).fetchall()[0][0]
        check(want == got, f"edges of {repo}: {want} by join, {got} in its partition")
        # Pruning: reading one repository's partition reads less than reading them all.
        one = data_read(con, f"SELECT count(*) FROM {part['symbols']} WHERE repo = '{repo}'")
        every = data_read(con, f"SELECT count(*) FROM {part['symbols']}")
        check(one < every, f"symbols of {repo}: {one} bytes read, {every} for every repository")
    print("duckdb: every table has the same rows on both layouts; each partition holds its repository")
    return out


def spark_runs(gen: Path, hive: Path, want):
    try:
        from pyspark.sql import SparkSession
    except ImportError as e:
        return f"skipped: pyspark is not importable ({e})"
    spark = (
        SparkSession.builder.master("local[1]")
        .appName("kivgraph-hive-test")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.ui.showConsoleProgress", "false")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    try:
        for layout in ["flat", "partitioned"]:
            views = {}
            for t in TABLES:
                path = str(gen / (t + ".parquet")) if layout == "flat" else str(hive / t)
                name = f"{layout}_{t}"
                spark.read.parquet(path).createOrReplaceTempView(name)
                views[t] = name
            for q_name, q in QUERIES.items():
                rows = [tuple(r) for r in spark.sql(q.format(**views)).collect()]
                check(canonical(rows) == canonical(want[q_name]),
                      f"spark {layout} {q_name}: {rows} != duckdb {want[q_name]}")
                print(f"spark {layout} {q_name}: {len(rows)} rows, as duckdb")
        # Partition discovery: the repo column is there, and a filter on it prunes.
        df = spark.read.parquet(str(hive / "symbols"))
        check("repo" in df.columns, f"no repo column: {df.columns}")
        repos = [r[0] for r in spark.sql("SELECT name FROM flat_repositories").collect()]
        for repo in repos:
            filtered = df.where(df.repo == repo)
            plan = filtered._jdf.queryExecution().executedPlan().toString()
            check("PartitionFilters: [isnotnull(repo" in plan, f"no partition filter for {repo}: {plan}")
            n = filtered.count()
            m = spark.sql(f"SELECT count(*) FROM flat_symbols WHERE repository = '{repo}'").collect()[0][0]
            check(n == m, f"spark symbols of {repo}: {n} != {m}")
        return f"ran: Spark {spark.version}"
    finally:
        spark.stop()


def main(argv):
    gen, hive = Path(argv[1]), Path(argv[2])
    want = duckdb_runs(gen, hive)
    said = spark_runs(gen, hive, want)
    print(f"spark: {said}")
    if "--require-spark" in argv and not said.startswith("ran"):
        print("FAIL: Spark was required")
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
