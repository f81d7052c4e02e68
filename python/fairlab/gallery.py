"""One page over every study: per source document and experiment, how many
published numbers fairlab reproduces (within, outside, qualitative claims),
against ns-2 and the kernel where they ran, with a thumbnail of each figure
linking to the experiment in its study's report.

``fairlab reproduce all`` writes each study's report into ``OUT/<study>/``
(``fairlab.report``), beside it ``gallery.json`` (the counts, from the
outcomes) and ``thumbs/<experiment>.png``; then this module's ``write_index``
reads every ``OUT/*/gallery.json`` and writes ``OUT/index.html``. The page
is static HTML that opens from disk; it is made from the saved counts, so it
can be written again without running anything.
"""

from __future__ import annotations

import html
import io
import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .studies.base import NOT_RUN, OUTSIDE, QUALITATIVE, WITHIN

if TYPE_CHECKING:
    import pandas as pd

    from .outcome import Outcome
    from .studies.base import Study

#: Each study's counts, beside its report.
DOC = "gallery.json"
PAGE = "index.html"
THUMBS = "thumbs"
#: Width of a thumbnail (pixels); colors kept (a palette PNG stays small).
THUMB_WIDTH_PX = 400
THUMB_COLORS = 64
FORMAT = 1


def counts(v: pd.DataFrame) -> dict[str, int]:
    """A verdicts table (``studies.base.verdicts``) counted: within,
    outside, qualitative (holds, does not hold, not shown) and not run."""
    q = v[v["verdict"] == QUALITATIVE] if len(v) else v
    holds = q["holds"].tolist() if len(q) else []
    return {
        "within": int((v["verdict"] == WITHIN).sum()) if len(v) else 0,
        "outside": int((v["verdict"] == OUTSIDE).sum()) if len(v) else 0,
        "holds": sum(1 for h in holds if h is True),
        "fails": sum(1 for h in holds if h is False),
        "unshown": sum(1 for h in holds if h is not True and h is not False),
        "not_run": int((v["verdict"] == NOT_RUN).sum()) if len(v) else 0,
    }


def thumbnail(png: bytes, width_px: int = THUMB_WIDTH_PX) -> bytes:
    """``png`` scaled to ``width_px`` wide, as a palette PNG (a few kB)."""
    from PIL import Image

    im = Image.open(io.BytesIO(png)).convert("RGB")
    if im.width > width_px:
        im = im.resize((width_px, max(1, round(im.height * width_px / im.width))), Image.LANCZOS)
    im = im.quantize(colors=THUMB_COLORS, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    buf = io.BytesIO()
    im.save(buf, format="PNG", optimize=True)
    return buf.getvalue()


def _experiment(o: Outcome, out: Path) -> dict[str, Any]:
    e = o.experiment
    entry: dict[str, Any] = {
        "name": e.name,
        "reproduces": e.reproduces,
        "runs": len(o.runs),
        "wall_s": round(o.wall_s, 1),
        "fairlab": counts(o.verdicts),
        "thumb": None,
        "ns2": None,
        "ns2_note": o.ns2_note,
        "kernel": None,
        "kernel_note": o.kernel_note,
    }
    if o.png is not None:
        (out / THUMBS).mkdir(parents=True, exist_ok=True)
        (out / THUMBS / f"{e.name}.png").write_bytes(thumbnail(o.png))
        entry["thumb"] = f"{THUMBS}/{e.name}.png"
    if o.ns2 is not None:
        from .ns2.studies import agreement

        ag = agreement(o.summary.table, o.ns2.summary.table)
        p = o.ns2_provenance
        entry["ns2"] = {
            **counts(o.ns2.verdicts),
            "agrees": int(ag["agrees"].sum()) if len(ag) else 0,
            "points": len(ag),
            "source": f"stored ns-2 results of {p.get('date', '?')}" if p else "ns-2 run now",
        }
    if o.kernel is not None:
        entry["kernel"] = counts(o.kernel.verdicts)
    return entry


def save_study(study: Study, outcomes: Sequence[Outcome], out: str | Path, command: str) -> Path:
    """Writes ``gallery.json`` and the thumbnails of one study's outcomes
    into its report's directory ``out``; returns the JSON's path."""
    out = Path(out)
    doc = {
        "format": FORMAT,
        "study": study.name,
        "title": study.title,
        "source": study.source,
        "doc": study.doc,
        "report": PAGE,
        "quick": any(o.quick for o in outcomes),
        "command": command,
        "experiments": [_experiment(o, out) for o in outcomes],
    }
    path = out / DOC
    path.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    return path


def load(out: str | Path) -> list[dict[str, Any]]:
    """Every study's ``gallery.json`` under ``out`` (``out/<study>/``), in
    the registry's order, then others by name. A file that is not one is
    named (ValueError, one line)."""
    from . import studies

    order = {n: i for i, n in enumerate(studies.names())}
    docs = []
    for path in sorted(Path(out).glob(f"*/{DOC}")):
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            raise ValueError(f"{path}: not readable as a gallery entry ({e})") from None
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            raise ValueError(f"{path}: not a gallery entry of format {FORMAT}")
        doc["dir"] = path.parent.name
        docs.append(doc)
    return sorted(docs, key=lambda d: (order.get(d["study"], len(order)), d["study"]))


def write_index(out: str | Path, *, version: str = "", command: str = "") -> Path:
    """Writes ``out/index.html`` from every study's ``gallery.json`` there."""
    out = Path(out)
    docs = load(out)
    page = out / PAGE
    page.write_text(_html(docs, version, command), encoding="utf-8")
    return page


_CSS = """
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
       margin: 0 auto; max-width: 1280px; padding: 0 24px 48px; color: #1d2125; }
h1 { font-size: 26px; margin: 28px 0 4px; }
h2 { font-size: 20px; margin: 34px 0 4px; padding-top: 12px; border-top: 2px solid #d0d7de; }
.sub, .small { color: #57606a; }
.small { font-size: 12px; }
.banner { background: #fff8c5; border: 1px solid #d4a72c; padding: 8px 12px;
          border-radius: 6px; margin: 12px 0; }
table { border-collapse: collapse; font-size: 13px; margin: 6px 0 10px; }
th, td { border: 1px solid #d0d7de; padding: 4px 8px; vertical-align: top; }
th { background: #f6f8fa; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.within { background: #dafbe1; } td.outside { background: #ffebe9; }
img.thumb { width: 220px; border: 1px solid #d0d7de; display: block; }
tr.total td { font-weight: 600; background: #f6f8fa; }
"""


def _e(x: Any) -> str:
    return html.escape(str(x))


def _num(n: int, cls: str = "") -> str:
    c = f"num {cls}" if cls and n else "num"
    return f'<td class="{c}">{n}</td>'


def _other(c: dict[str, Any] | None, note: str, what: str) -> str:
    """The ns-2 or kernel cell: its verdicts against the published numbers
    (and for ns-2, fairlab's agreement with it point by point), or why none."""
    if c is None:
        default = {
            "ns-2": "no ns-2 results kept for this experiment (--backend ns2 runs it)",
            "the kernel": "not run on the kernel (--backend both runs it)",
        }[what]
        return f'<td class="small">{_e(note or default)}</td>'
    parts = [f"within {c['within']}, outside {c['outside']}"]
    if c.get("holds") or c.get("fails"):
        parts.append(f"claims hold {c['holds']}, do not {c['fails']}")
    if "points" in c:
        parts.append(f"fairlab agrees with {what} at {c['agrees']} of {c['points']} points")
        parts.append(c["source"])
    return f"<td>{_e('; '.join(parts))}</td>"


_KEYS = ("within", "outside", "holds", "fails", "unshown", "not_run")


def _study_html(doc: dict[str, Any]) -> str:
    report = f"{doc['dir']}/{doc['report']}"
    rows = [
        "<tr><th>figure</th><th>experiment</th><th>within</th><th>outside</th>"
        "<th>claims hold</th><th>claims do not hold</th><th>claims not shown</th>"
        "<th>not run</th><th>ns-2 (against the published numbers)</th>"
        "<th>kernel (against the published numbers)</th></tr>"
    ]
    total = dict.fromkeys(_KEYS, 0)
    for x in doc["experiments"]:
        href = f"{report}#{x['name']}"
        thumb = (
            f'<a href="{_e(href)}"><img class="thumb" src="{_e(doc["dir"] + "/" + x["thumb"])}" '
            f'alt="{_e(doc["study"])} {_e(x["name"])}"></a>'
            if x.get("thumb")
            else '<span class="small">no figure</span>'
        )
        c = x["fairlab"]
        for k in _KEYS:
            total[k] += c[k]
        rows.append(
            f'<tr class="experiment" data-study="{_e(doc["study"])}" '
            f'data-experiment="{_e(x["name"])}">'
            f"<td>{thumb}</td>"
            f'<td><a href="{_e(href)}">{_e(x["name"])}</a><br><span class="small">'
            f"{_e(x['reproduces'])} ({x['runs']} runs, {x['wall_s']} s)</span></td>"
            + _num(c["within"], "within")
            + _num(c["outside"], "outside")
            + _num(c["holds"], "within")
            + _num(c["fails"], "outside")
            + _num(c["unshown"])
            + _num(c["not_run"])
            + _other(x.get("ns2"), x.get("ns2_note", ""), "ns-2")
            + _other(x.get("kernel"), x.get("kernel_note", ""), "the kernel")
            + "</tr>"
        )
    rows.append(
        '<tr class="total"><td></td><td>all experiments</td>'
        + "".join(_num(total[k]) for k in _KEYS)
        + "<td></td><td></td></tr>"
    )
    return (
        f'<section class="study" id="{_e(doc["study"])}">'
        f'<h2><a href="{_e(report)}">{_e(doc["title"])}</a></h2>'
        f'<p class="sub">Source: {_e(doc["source"])}. Discussion: <code>{_e(doc["doc"])}</code>. '
        f'Report: <a href="{_e(report)}">{_e(report)}</a>'
        + (f"; <code>{_e(doc['command'])}</code>" if doc.get("command") else "")
        + f'.</p><table class="gallery">{"".join(rows)}</table></section>'
    )


def _html(docs: list[dict[str, Any]], version: str, command: str) -> str:
    quick = any(d.get("quick") for d in docs)
    n_exp = sum(len(d["experiments"]) for d in docs)
    head = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        "<title>fairlab: every reproduction</title>",
        f"<style>{_CSS}</style></head><body>",
        "<h1>fairlab: every reproduction at a glance</h1>",
        f'<p class="sub">{len(docs)} source documents, {n_exp} experiments'
        + (f"; fairlab {_e(version)}" if version else "")
        + (f"; <code>{_e(command)}</code>" if command else "")
        + ".</p>",
    ]
    if quick:
        head.append(
            '<p class="banner">Quick mode: fewer and shorter runs than the sources; the '
            "verdicts judge these short runs, not the published scale.</p>"
        )
    head.append(
        '<p class="small">Per experiment, the published numbers fairlab lands <b>within</b> '
        "the tolerance of or <b>outside</b> it, and the source's qualitative claims its runs "
        "show to hold, not to hold, or do not show; <b>not run</b>: rows of the source this "
        "mode leaves out. The ns-2 and kernel columns judge those backends' runs against the "
        "same published numbers. Each thumbnail links to the experiment in its study's report."
        "</p>"
    )
    head.append(_overview(docs))
    body = [_study_html(d) for d in docs]
    return "\n".join([*head, *body, "</body></html>\n"])


def _overview(docs: list[dict[str, Any]]) -> str:
    """One row per source document: its experiments' counts summed."""
    rows = [
        "<tr><th>source document</th><th>experiments</th><th>within</th><th>outside</th>"
        "<th>claims hold</th><th>claims do not hold</th><th>claims not shown</th>"
        "<th>not run</th></tr>"
    ]
    for d in docs:
        total = dict.fromkeys(_KEYS, 0)
        for x in d["experiments"]:
            for k in _KEYS:
                total[k] += x["fairlab"][k]
        rows.append(
            f'<tr class="overview" data-study="{_e(d["study"])}">'
            f'<td><a href="#{_e(d["study"])}">{_e(d["title"])}</a></td>'
            + _num(len(d["experiments"]))
            + "".join(_num(total[k]) for k in _KEYS)
            + "</tr>"
        )
    return f'<table class="overview">{"".join(rows)}</table>'
