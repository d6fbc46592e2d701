"""Imported once by the claim processes' forkserver: the numerical stack and the built-in claims,
so that each claim process starts as a fork instead of importing torch (about 2 s of CPU).

Nothing here may start threads or touch a device (a fork must inherit no running thread pool and
no CUDA context). Failures are ignored: a claim process then imports what it needs itself.
"""

try:
    import mpmath  # noqa: F401
    import numpy  # noqa: F401
    import scipy  # noqa: F401
    import sympy  # noqa: F401
    import torch  # noqa: F401

    import attnaudit.checks.runner  # noqa: F401
    from attnaudit.checks.discovery import discover

    discover()  # imports every built-in spec module (names only; specs import nothing numeric)
except BaseException:  # noqa: BLE001, S110 - a warm-up only (Ctrl-C here too: quietly)
    pass
