"""Riemann GeoResolver (L. Ge, arXiv 2608.10416v1): inverse-distance attention, Euclidean to
hyperbolic and spherical. Source text: ``shared/papers/000_a7d7464127a08b1f.txt``."""

from attnaudit.checks import Measured, Paper, SummaryTable, TableCell, TableRow

PAPER = Paper(
    key="georesolver",
    title=("Riemann GeoResolver: A Non-Euclidean Attention Framework from Euclidean Resolver "
           "to Hyperbolic-Spherical Geometry"),
    authors=("Liangchen Ge",),
    arxiv="2608.10416v1",
    source_file="papers/000_a7d7464127a08b1f.txt",
)


def _cell(entry: str, *refs: tuple[str, str | None]) -> TableCell:
    return TableCell(entry, tuple(Measured(f"georesolver/{claim}", check) for claim, check in refs))


# §3 "Euclidean Summary: Table of Theoretical Guarantees", entries as the paper prints them (LaTeX).
# The Lipschitz row holds two Resolver entries (low-rank and general); it is split in two so that
# each entry has its own measured counterpart: seven rows for the paper's six.
TABLES = (
    SummaryTable(
        key="table-3",
        label="Table 3",
        section="§3",
        title="Euclidean Summary: Table of Theoretical Guarantees",
        columns=("Softmax", "Resolver (IDA)"),
        rows=(
            TableRow("Circuit separation (Thm. 1)", (
                _cell(r"\Omega((\log n)^2)", ("theorem-2.2/softmax", "retrieval-boundary-vs-n")),
                _cell(r"O(1)", ("theorem-2.2/ida", "eps-star-vs-n")),
            )),
            TableRow("Lipschitz scaling (Lemma 1), low-rank / clustered keys", (
                _cell(r"O(n)", ("lemma-2.4/softmax", "jacobian-norm-vs-n")),
                _cell(r"O(\log n)", ("lemma-2.4/ida-clustered", "jacobian-norm-vs-n")),
            )),
            TableRow("Lipschitz scaling (Lemma 1), general keys", (
                _cell(r"O(n)", ("lemma-2.4/softmax", "jacobian-norm-vs-n")),
                _cell(r"O(n)", ("lemma-2.4/ida-general", "jacobian-norm-vs-n")),
            )),
            TableRow("Hessian spread (Lemma 2)", (
                _cell(r"\Theta(n^{-2})", ("lemma-2.5/softmax", "order-in-n")),
                _cell(r"\Theta(1)", ("lemma-2.5/ida", "fixed-eps"),
                      ("lemma-2.5/spread", "spread-ida-vs-n")),
            )),
            TableRow("PL constant (Thm. 2)", (
                _cell(r"\Theta(e^{-\Delta^2/\sqrt{d}}\,\varepsilon^2/\Delta^2)",
                      ("theorem-2.6/softmax", "pl-soft-vs-delta"), ("theorem-2.6/softmax", "pl-soft-vs-d")),
                _cell(r"\Theta(\varepsilon^2/\Delta^4)", ("theorem-2.6/ida", "pl-vs-eps"),
                      ("theorem-2.6/ida", "pl-vs-delta")),
            )),
            TableRow("Effective rank (Thm. 3)", (
                _cell(r"\text{Unbounded}", ("theorem-2.9", "softmax-eff-rank-vs-n")),
                _cell(r"\le 1+n\varepsilon^2/d_{\min}^4 \text{ (small } \varepsilon)",
                      ("theorem-2.8/small-eps", "paper-bound"), ("theorem-2.8/width-independence", None)),
            )),
            TableRow("Noise memorization (Thm. 3)", (
                _cell(r"\text{At } d_h \ge n", ("theorem-2.9", None)),
                _cell(r"\text{Structurally limited}", ("theorem-2.10", None)),
            )),
        ),
    ),
)
