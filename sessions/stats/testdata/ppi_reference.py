#!/usr/bin/env python3
"""Reference values for sessions/stats/ppi.go (PPI++ for a mean).

No published small example with printed ppi_py numbers was found, so this
script transliterates ppi_py's own code, item by item, into pure Python
(no numpy, no scipy) and prints its output on small hand-made cases. The Go
test quotes these numbers.

Followed: aangelopoulos/ppi_py, ppi_py/ppi.py at commit
c43453a4619f77bacc33fcc278523bdcadb3e78d (the same mean code as 04d67250…):
  - ppi_mean_ci (lam=None): a first point estimate with lam=1, the
    gradients grads = Y - est, grads_hat = Yhat - est, grads_hat_unlabeled =
    Yhat_unlabeled - est, inv_hessian = I, then
  - _calc_lam_glm(..., clip=True, optim_mode="overall"), for d = 1:
        cov_grads = (1/n) * 2 * sum((g - mean g) * (gh - mean gh))
        var_grads_hat = np.cov(concat(grads_hat, grads_hat_unlabeled))
                        (ddof = 1, over n + N values)
        lam = cov_grads / (2 * (1 + n/N) * var_grads_hat), clipped to [0, 1]
  - then ppi_mean_ci(lam=lam):
        est = mean(lam * Yhat_unlabeled) + mean(Y - lam * Yhat)
        imputed_std = std(lam * Yhat_unlabeled) / sqrt(N)   (ddof = 0)
        rectifier_std = std(Y - lam * Yhat) / sqrt(n)       (ddof = 0)
        _zconfint_generic(est, sqrt(imputed_std^2 + rectifier_std^2), alpha)
        = est -/+ norm.ppf(1 - alpha/2) * se
  - ppi_mean_pointestimate (lam=None) picks the same lam the same way.
and ppi_py/baselines.py at commit 0cec802ecdb32e61503b99440fae9e812a5ad1bc:
  - classical_mean_ci(Y) = mean(Y) -/+ z * std(Y) / sqrt(n)  (ddof = 0)

Everything but the square root is exact (fractions.Fraction); the square
root is taken with 50-digit decimals. Run: python3 ppi_reference.py
"""

from decimal import Decimal, getcontext
from fractions import Fraction as F
from statistics import NormalDist

getcontext().prec = 50
Z = Decimal(repr(NormalDist().inv_cdf(0.975)))  # 1.959963984540054, alpha = 0.05


def mean(xs):
    return sum(xs, F(0)) / len(xs)


def pvar(xs):  # numpy .std()**2, ddof = 0
    m = mean(xs)
    return sum(((x - m) ** 2 for x in xs), F(0)) / len(xs)


def svar(xs):  # np.cov of one row, ddof = 1
    m = mean(xs)
    return sum(((x - m) ** 2 for x in xs), F(0)) / (len(xs) - 1)


def sqrt(q):
    return (Decimal(q.numerator) / Decimal(q.denominator)).sqrt()


def calc_lam(Y, Yhat, Yhat_unlabeled):
    n, N = len(Y), len(Yhat_unlabeled)
    est1 = mean(Yhat_unlabeled) + mean([y - f for y, f in zip(Y, Yhat)])
    g = [y - est1 for y in Y]
    gh = [f - est1 for f in Yhat]
    ghu = [f - est1 for f in Yhat_unlabeled]
    mg, mgh = mean(g), mean(gh)
    cov_grads = F(1, n) * 2 * sum(((a - mg) * (b - mgh) for a, b in zip(g, gh)), F(0))
    var_grads_hat = svar(gh + ghu)
    raw = cov_grads / (2 * (1 + F(n, N)) * var_grads_hat)
    return raw, min(max(raw, F(0)), F(1))


def ppi_mean_ci(Y, Yhat, Yhat_unlabeled):
    n, N = len(Y), len(Yhat_unlabeled)
    raw, lam = calc_lam(Y, Yhat, Yhat_unlabeled)
    est = mean([lam * f for f in Yhat_unlabeled]) + mean([y - lam * f for y, f in zip(Y, Yhat)])
    var = pvar([lam * f for f in Yhat_unlabeled]) / N + pvar([y - lam * f for y, f in zip(Y, Yhat)]) / n
    se = sqrt(var)
    return raw, lam, est, var, se


def classical_mean_ci(Y):
    n = len(Y)
    var = pvar(Y) / n
    return mean(Y), var, sqrt(var)


def fmt(x):
    return "%.17g" % float(x) if not isinstance(x, Decimal) else "%.17g" % float(x)


def report(name, Y, Yhat, Yhat_unlabeled):
    raw, lam, est, var, se = ppi_mean_ci(Y, Yhat, Yhat_unlabeled)
    cm, cvar, cse = classical_mean_ci(Y)
    d_est, d_cm = Decimal(est.numerator) / Decimal(est.denominator), Decimal(cm.numerator) / Decimal(cm.denominator)
    print(name, "n =", len(Y), "N =", len(Yhat_unlabeled))
    print("  lambda raw      ", raw, "=", fmt(raw))
    print("  lambda          ", lam, "=", fmt(lam))
    print("  ppi estimate    ", est, "=", fmt(est))
    print("  ppi interval     [", fmt(d_est - Z * se), ",", fmt(d_est + Z * se), "]")
    print("  labels mean     ", cm, "=", fmt(cm))
    print("  labels interval  [", fmt(d_cm - Z * cse), ",", fmt(d_cm + Z * cse), "]")
    if var > 0:
        eff = pvar(Y) / var  # n * Var_classical / Var_PPI
        print("  effective labels", eff, "=", fmt(eff))


def ints(xs):
    return [F(x) for x in xs]


if __name__ == "__main__":
    # Likert 1..5, a judge that is mostly right: lam strictly inside (0, 1).
    report("likert",
           ints([5, 4, 4, 3, 2, 5, 1, 3]),
           ints([5, 5, 4, 3, 3, 4, 2, 4]),
           ints([5, 4, 4, 2, 3, 5, 1, 4, 4, 3, 5, 2]))
    # Binary pass/fail.
    report("binary",
           ints([1, 1, 1, 0, 1, 0, 1, 1, 0, 1]),
           ints([1, 1, 1, 1, 1, 0, 0, 1, 0, 1]),
           ints([1] * 15 + [0] * 5))
    # A judge that disagrees with the humans: lam clipped to 0.
    report("contrary",
           ints([1, 1, 1, 0, 0, 1]),
           ints([0, 0, 1, 1, 1, 0]),
           ints([1, 0, 1, 1, 0, 0, 1, 1]))
    # ppi_py tests/test_mean.py test_ppi_mean_pointestimate: Yhat = Y + 2,
    # every unlabelled prediction 2, n = 100, N = 10000; the test asserts the
    # point estimate is 0 (lam clips to 1). Here Y takes 0, 1, 2.
    report("ppi_py test_ppi_mean_pointestimate",
           ints([0] * 30 + [1] * 40 + [2] * 30),
           ints([2] * 30 + [3] * 40 + [4] * 30),
           ints([2] * 10000))
