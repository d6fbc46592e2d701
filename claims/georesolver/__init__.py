"""Riemann GeoResolver (L. Ge, arXiv 2608.10416v1): inverse-distance attention, Euclidean to
hyperbolic and spherical. Source text: ``shared/papers/000_a7d7464127a08b1f.txt``."""

from attnaudit.checks import Contribution, Measured, Paper, SummaryTable, TableCell, TableRow

# The abstract's promises, quoted, with the claims that carry each (issue 25).
CONTRIBUTIONS = (
    Contribution(r"circuit separation---IDA achieves exact retrieval with $\mathcal{O}(1)$ resources while "
                 r"softmax requires $\Omega((\log n)^2)$ width",
                 ("georesolver/theorem-2.2/ida", "georesolver/theorem-2.2/softmax")),
    Contribution(r"a Polyak--Lojasiewicz inequality with $\Omega(e^{\Delta^2/\sqrt{d}}/\Delta^2)$ stronger "
                 "constant than softmax",
                 ("georesolver/theorem-2.6/ida", "georesolver/theorem-2.6/softmax",
                  "georesolver/theorem-2.6/ratio")),
    Contribution("implying linear convergence",
                 ("georesolver/corollary-2.7/linear-convergence",)),
    Contribution(r"$\mathcal{O}(\log n)$ Lipschitz scaling under a low-rank/clustering assumption",
                 ("georesolver/lemma-2.4/ida-clustered",)),
    Contribution(r"$\Theta(1)$ Hessian spread",
                 ("georesolver/lemma-2.5/ida", "georesolver/lemma-2.5/spread")),
    Contribution("absence of spurious local minima",
                 ("georesolver/corollary-2.7/no-spurious-minima",)),
    Contribution("a width-independent effective rank bound that limits noise memorization",
                 ("georesolver/theorem-2.8/small-eps", "georesolver/theorem-2.8/general",
                  "georesolver/theorem-2.8/width-independence")),
    Contribution(r"softmax memorizes arbitrary labels when $d_h\ge n$",
                 ("georesolver/theorem-2.9",)),
    Contribution(r"IDA limits test error to $\mathcal{O}(\eta^2)$",
                 ("georesolver/theorem-2.10",)),
    Contribution(r"four HIDA operators spanning $\Theta(n^2)$ to $\Theta(1)$ per token",
                 ("georesolver/proposition-11.1", "georesolver/theorem-5.4",
                  "georesolver/theorem-5.5/complexity", "georesolver/theorem-5.6")),
    Contribution("Hyperbolic Curvature Compression (HCC) with provable error bounds",
                 ("georesolver/theorem-6.1", "georesolver/theorem-6.2")),
    Contribution("HyperGate with gradient lower-bound theorem",
                 ("georesolver/theorem-7.1",)),
    Contribution("Spherical Inverse Distance Attention (SIDA) with sphere-analog PL inequalities",
                 ("georesolver/theorem-8.1",)),
    Contribution(r"Dynamic Memory Genesis (DMG) with $\mathcal{O}(\log T)$ regret bounds",
                 ("georesolver/lemma-9.1", "georesolver/section-9.2")),
    Contribution("Geodesic Sparse Routing (GSR) with quality and communication bounds",
                 ("georesolver/theorem-10.1/bound", "georesolver/theorem-10.1/limit",
                  "georesolver/theorem-10.2")),
)

PAPER = Paper(
    key="georesolver",
    title=("Riemann GeoResolver: A Non-Euclidean Attention Framework from Euclidean Resolver "
           "to Hyperbolic-Spherical Geometry"),
    authors=("Liangchen Ge",),
    arxiv="2608.10416v1",
    source_file="papers/000_a7d7464127a08b1f.txt",
    contributions=CONTRIBUTIONS,
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
