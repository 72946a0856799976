"""Makes the data files of the corpus of real series (bench/corpus/README.md).

Two sources, each written as one JSON file next to this script:

* ``walk``: one walk of a real project's history, read from the SQLite store of the
  walk (``perfwalk run``) — per metric, per checkout, the values of the walk's own
  repetitions (a re-measure's are left out, as the walk's analysis leaves them out),
  and per repetition the machine's state perfwalk recorded (load average, CPU share
  of other processes):

      python bench/corpus/build.py walk STORE.db SERIES_ID walks/NAME.series.json

* ``tcpd``: the kept datasets of the Turing Change Point Dataset and their human
  annotations, read from a git directory of github.com/alan-turing-institute/TCPD at
  a commit (``git show``); which datasets are kept and why is in ``TCPD_KEPT`` below:

      python bench/corpus/build.py tcpd TCPD_GIT_DIR COMMIT tcpd.json

* ``sap``: SAP's Performance Regression Data Set, its small set from SAP HANA's own
  performance testing (25 series, each judged by SAP's performance engineers), read
  from a git directory of github.com/SAP/performance-regression-data-set at a commit;
  each series's measurements grouped by the build they measured (``GHC``), in their
  order, with the engineers' judgement:

      python bench/corpus/build.py sap SAP_GIT_DIR COMMIT sap.json

The ground truth of a walk (the changes a person flags, each with the A/B or drill
that checked it) is written by hand in ``walks/NAME.manifest.json``.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import sqlite3
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

#: dataset → (licence, where the licence is stated, attribution to quote). Only
#: univariate series whose README in TCPD states a licence that allows
#: redistribution with attribution (public domain, CC0, CC BY, MIT, OGL, the source's
#: own permission). Left out: data TCPD does not redistribute (apple, bee_waggle_6,
#: bitcoin, iceland_tourism, measles, occupancy, ratner_stock, robocalls,
#: scanline_*), share-alike or copyleft terms (homeruns CC BY-SA 3.0, centralia from
#: Wikipedia CC BY-SA, nile and seatbelts GPL-2), no licence stated and synthetic
#: (quality_control_1 to 5), multivariate (run_log).
TCPD_KEPT: dict[str, tuple[str, str]] = {
    "bank": ("MIT", "MIT licence, datasets/bank/LICENSE"),
    "brent_spot": ("public domain", "Source: U.S. Energy Information Administration (Sep. 2019)"),
    "businv": (
        "public domain (US Census Bureau; redistribution allowed)",
        "Source: United States Census Bureau, https://www.census.gov, retrieved 2019-09-11",
    ),
    "children_per_woman": ("CC BY 4.0", "Free data from www.gapminder.org"),
    "co2_canada": ("CC BY 4.0", "Free data from www.gapminder.org"),
    "construction": (
        "public domain (US Census Bureau; redistribution allowed)",
        "Source: United States Census Bureau, https://www.census.gov, retrieved 2019-09-11",
    ),
    "debt_ireland": (
        "redistribution allowed with the source quoted (Euro Area Statistics)",
        "Source: euro area statistics, retrieved 2019-03-27",
    ),
    "gdp_argentina": ("CC BY 4.0", "World Bank, NY.GDP.MKTP.KN, retrieved 2019-08-28"),
    "gdp_croatia": ("CC BY 4.0", "World Bank, NY.GDP.MKTP.KN, retrieved 2019-08-28"),
    "gdp_iran": ("CC BY 4.0", "World Bank, NY.GDP.MKTP.KN, retrieved 2019-08-28"),
    "gdp_japan": ("CC BY 4.0", "World Bank, NY.GDP.MKTP.KN, retrieved 2019-08-28"),
    "global_co2": (
        "CC BY 3.0",
        "Meinshausen et al., Historical greenhouse gas concentrations for climate "
        "modelling (CMIP6), Geoscientific Model Development 10, 2057-2116, 2017",
    ),
    "jfk_passengers": ("CC0", "Port Authority of NY & NJ, via New York State's Kaggle page"),
    "lga_passengers": ("CC0", "Port Authority of NY & NJ, via New York State's Kaggle page"),
    "ozone": (
        "CC BY 4.0 (Our World in Data); the source data public domain",
        "Our World in Data; Hegglin et al., Twenty questions and answers about the ozone "
        "layer: 2014 update, WMO",
    ),
    "rail_lines": ("CC BY 4.0", "World Bank, IS.RRS.TOTL.KM"),
    "shanghai_license": ("CC0", "Kaggle, bogof666/shanghai-car-license-plate-auction-price"),
    "uk_coal_employ": ("Open Government Licence v3.0", "UK government, historical coal data"),
    "unemployment_nl": (
        "redistribution allowed (Statistics Netherlands, CBS open data)",
        "Statistics Netherlands (CBS), table 71882ned",
    ),
    "us_population": (
        "public domain (US Census Bureau; redistribution allowed)",
        "Source: United States Census Bureau, https://www.census.gov, retrieved 2019-08-28",
    ),
    "usd_isk": (
        "© European Union; reuse allowed with acknowledgement (Eurostat copyright policy)",
        "Eurostat, ert_bil_eur_m",
    ),
    "well_log": (
        "MIT",
        "Ó Ruanaidh and Fitzgerald, Numerical Bayesian Methods Applied to Signal "
        "Processing, Springer, 1996",
    ),
}

TCPD_URL = "https://github.com/alan-turing-institute/TCPD"
TCPD_CITATION = (
    "G. J. J. van den Burg and C. K. I. Williams, An Evaluation of Change Point "
    "Detection Algorithms, arXiv:2003.06222, 2020"
)


def walk(store: Path, series_id: int) -> dict[str, Any]:
    """The values of one walk, per metric and checkout, with the machine's state."""
    db = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    (planned,) = db.execute("SELECT repetitions FROM series WHERE id = ?", (series_id,)).fetchone()
    checkouts = [
        {"index": idx, "commit": sha, "date": date}
        for idx, sha, date in db.execute(
            "SELECT idx, sha, date FROM checkout WHERE series_id = ? ORDER BY idx", (series_id,)
        )
    ]
    states: dict[tuple[int, int], dict[str, float | None]] = {}
    for idx, rep, load1, cores, others in db.execute(
        "SELECT c.idx, r.idx, m.load1, m.cores, m.others_cpu FROM machine_state m"
        " JOIN repetition r ON r.id = m.repetition_id JOIN checkout c ON c.id = r.checkout_id"
        " WHERE c.series_id = ? AND m.host = 'local'",
        (series_id,),
    ):
        states[(idx, rep)] = {"load1": load1, "cores": cores, "others_cpu": others}
    metrics: dict[str, dict[str, Any]] = {}
    for idx, rep, test, name, unit, value, direction in db.execute(
        "SELECT c.idx, r.idx, t.test, v.name, v.unit, v.value, v.direction FROM value v"
        " JOIN result t ON t.id = v.result_id JOIN repetition r ON r.id = t.repetition_id"
        " JOIN checkout c ON c.id = r.checkout_id"
        " WHERE c.series_id = ? AND t.status = 1 AND v.value IS NOT NULL"
        " ORDER BY c.idx, r.idx",
        (series_id,),
    ):
        if rep >= planned:  # a re-measure ([run] confirm), not the walk's
            continue
        metric = metrics.setdefault(
            f"{test}.{name}",
            {
                "unit": unit,
                "direction": direction,
                "values": [[] for _ in checkouts],
                "repetitions": [[] for _ in checkouts],
            },
        )
        metric["values"][idx].append(value)
        metric["repetitions"][idx].append(rep)
    load = [
        [states.get((c["index"], rep), {}).get("load1") for rep in range(planned)]
        for c in checkouts
    ]
    others = [
        [states.get((c["index"], rep), {}).get("others_cpu") for rep in range(planned)]
        for c in checkouts
    ]
    for metric in metrics.values():
        del metric["repetitions"]
    return {
        "store_series": series_id,
        "checkouts": checkouts,
        "load1": load,
        "others_cpu": others,
        "metrics": metrics,
    }


def _git_show(git_dir: Path, commit: str, path: str) -> str:
    return subprocess.run(
        ["git", "--git-dir", str(git_dir), "show", f"{commit}:{path}"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def tcpd(git_dir: Path, commit: str) -> dict[str, Any]:
    """The kept TCPD datasets with their annotations, licence and attribution."""
    annotations = json.loads(_git_show(git_dir, commit, "annotations.json"))
    datasets = []
    for name, (licence, attribution) in TCPD_KEPT.items():
        data = json.loads(_git_show(git_dir, commit, f"datasets/{name}/{name}.json"))
        (series,) = data["series"]  # the kept ones are univariate
        datasets.append(
            {
                "name": name,
                "longname": data.get("longname", name),
                "licence": licence,
                "attribution": attribution,
                "readme": f"{TCPD_URL}/blob/{commit}/datasets/{name}/README.md",
                "values": series["raw"],
                "annotations": annotations[name],
            }
        )
    return {
        "source": "Turing Change Point Dataset",
        "url": TCPD_URL,
        "commit": commit,
        "citation": TCPD_CITATION,
        "licence_of_the_repository": "MIT (code); each dataset's own, below",
        "datasets": datasets,
    }


SAP_URL = "https://github.com/SAP/performance-regression-data-set"
SAP_DIR = "hana/small_2021"
SAP_CITATION = (
    "T. Bach, P. Lv, M. Le et al. (SAP), Performance Regression Data Set, "
    "https://github.com/SAP/performance-regression-data-set, 2022"
)


def sap(git_dir: Path, commit: str) -> dict[str, Any]:
    """SAP HANA's small set: per series its builds, in order, each with the values
    measured on it, and the engineers' judgement (the kind of series; for a
    regression the index of the last measurement before it and the first build
    that has it)."""
    judged = [
        line.split(";")
        for line in _git_show(git_dir, commit, f"{SAP_DIR}/metadata/dataset_details.csv")
        .strip()
        .splitlines()[1:]
    ]
    series = []
    for kind, file, change_point in sorted(judged, key=lambda j: j[1]):
        rows = list(
            csv.DictReader(io.StringIO(_git_show(git_dir, commit, f"{SAP_DIR}/data/{file}")))
        )
        builds: list[dict[str, Any]] = []
        build_of: dict[int, int] = {}  # a measurement's index → its build's position
        for row in rows:
            if not builds or builds[-1]["build"] != row["GHC"]:
                builds.append({"build": row["GHC"], "values": []})
            builds[-1]["values"].append(float(row["Measurement"]))
            build_of[int(row["Index"])] = len(builds) - 1
        last_before = int(change_point)
        series.append(
            {
                "name": file.removesuffix(".csv"),
                "judgement": kind.strip(),
                "change_point": last_before,
                "first_build_with_it": build_of[last_before + 1] if last_before else None,
                "builds": builds,
            }
        )
    return {
        "source": "SAP Performance Regression Data Set, SAP HANA small 2021",
        "url": SAP_URL,
        "commit": commit,
        "citation": SAP_CITATION,
        "licence": "CC BY 4.0 (https://creativecommons.org/licenses/by/4.0/)",
        "attribution": "© SAP SE or an SAP affiliate company and performance-regression-data-set "
        "contributors, CC BY 4.0",
        "changes_made": "the measurements of a series grouped by the build they measured, "
        "in their order; the index column dropped (the order keeps it); the engineers' "
        "change point also given as the first build that has the regression",
        "judgements": "Stable: no regression and no issue; Regression: the series contains a "
        "performance regression, change_point the last index before it; any other word "
        "(Spike, High deviation, Build-dependent): it looks like there might be a regression "
        "but there is a different explanation (the data set's README)",
        "series": series,
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="source", required=True)
    w = sub.add_parser("walk")
    w.add_argument("store", type=Path)
    w.add_argument("series", type=int)
    w.add_argument("out", type=Path)
    t = sub.add_parser("tcpd")
    t.add_argument("git_dir", type=Path)
    t.add_argument("commit")
    t.add_argument("out", type=Path)
    p = sub.add_parser("sap")
    p.add_argument("git_dir", type=Path)
    p.add_argument("commit")
    p.add_argument("out", type=Path)
    args = parser.parse_args(argv)
    if args.source == "walk":
        data = walk(args.store, args.series)
    else:
        data = (tcpd if args.source == "tcpd" else sap)(args.git_dir, args.commit)
    args.out.write_text(json.dumps(data, separators=(",", ":")) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
