"""LIBSVM text from NumPy/SciPy arrays, built with whole-array operations.

The binary parses LIBSVM text faster than Python can format it one number
at a time (about 1 µs a number through ``str``), so the text is assembled
in a matrix of 4-byte words: every token (a line's label, or one
`` col:value``) is a row, each group of four decimal digits a word looked
up in a table, unused bytes NUL; dropping the NULs leaves the lines.

Each value is written so that the binary reads back exactly the same
float64: integers in plain digits, other numbers as ``Me-E`` with the
fewest of 15, 16 or 17 significant digits that round-trip (15 and 16
checked by redoing the parser's exact path, M / 10^E with M < 2^53 and
E ≤ 22, which IEEE division rounds correctly; 17 in extended precision),
and the rest (values below about 1e-10 or above 1e10 that are not
integers) through NumPy's shortest round-trip repr, about 1 µs a value.
"""

import numpy as np

_POW10 = 10.0 ** np.arange(23)
_POW10_INT = 10 ** np.arange(19, dtype=np.int64)
_POW10L = np.longdouble(10) ** np.arange(28)
# x86's 80-bit long double (64-bit mantissa); where long double is double,
# values that need 17 digits go through repr instead.
_LONG_OK = np.finfo(np.longdouble).nmant >= 63
_TWO53 = 2.0 ** 53


def _word_tables():
    plain = np.zeros((10000, 4), np.uint8)  # no leading zeros, right-aligned
    padded = np.zeros((10000, 4), np.uint8)  # four digits
    for i in range(10000):
        s = str(i).encode()
        plain[i, 4 - len(s):] = np.frombuffer(s, np.uint8)
        padded[i] = np.frombuffer(b"%04d" % i, np.uint8)
    return plain.view("<u4").ravel(), padded.view("<u4").ravel()


_PLAIN, _PADDED = _word_tables()
_PLAIN_NZ = _PLAIN.copy()  # a group above the top one is empty, not "0"
_PLAIN_NZ[0] = 0


def _word(b):
    """The uint32 word whose bytes are b, NUL-padded on the right."""
    return int(np.frombuffer(b.ljust(4, b"\0"), "<u4")[0])


def _uint_words(a):
    """Decimal digits of the non-negative int64 array a as words, most
    significant first, shape (len(a), nw); 0 is "0"."""
    top = int(a.max()) if a.size else 0
    nw = max(1, (len(str(top)) + 3) // 4)
    if nw == 1:
        return _PLAIN[a][:, None]
    out = np.empty((a.shape[0], nw), np.uint32)
    g, higher = a % 10000, a // 10000
    out[:, nw - 1] = np.where(higher > 0, _PADDED[g], _PLAIN[g])
    for k in range(1, nw):  # group k: digits 4k..4k+3 from the right
        g, higher = higher % 10000, higher // 10000
        # Below the top group a word keeps its zeros ("0042"); the top
        # group does not ("42"), and groups above it are empty.
        out[:, nw - 1 - k] = np.where(higher > 0, _PADDED[g], _PLAIN_NZ[g])
    return out


def _exact_mantissa(x):
    """For positive finite x: int64 M and E in 1..27 with M / 10^E == x as
    the parser computes it, and where that holds (ok)."""
    n = x.shape[0]
    mant = np.zeros(n, np.int64)
    expo = np.zeros(n, np.int64)
    ok = np.zeros(n, bool)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        lg = np.floor(np.log10(x)).astype(np.int64)
        for sig in (15, 16):
            e = sig - 1 - lg
            todo = np.flatnonzero(~ok & (e >= 1) & (e <= 22))
            et = e[todo]
            m = np.rint(x[todo] * _POW10[et])
            good = (m < _TWO53) & (m / _POW10[et] == x[todo])
            idx = todo[good]
            mant[idx] = m[good].astype(np.int64)
            expo[idx] = et[good]
            ok[idx] = True
        if _LONG_OK:
            # 17 digits always suffice, but M ≥ 2^53 leaves the parser's
            # fast path: it rounds M / 10^E correctly all the same, and
            # 64-bit extended precision (exact 10^E up to E = 27) is close
            # enough to check that it lands on x.
            e = 16 - lg
            todo = np.flatnonzero(~ok & (e >= 1) & (e <= 27))
            et = e[todo]
            xl = x[todo].astype(np.longdouble)
            m = np.rint(xl * _POW10L[et])
            good = (m < 9e18) & ((m / _POW10L[et]).astype(np.float64) == x[todo])
            idx = todo[good]
            mant[idx] = m[good].astype(np.int64)
            expo[idx] = et[good]
            ok[idx] = True
    # Trailing zeros make the text longer, not more exact.
    for _ in range(22):
        z = np.flatnonzero((expo > 0) & (mant % 10 == 0))
        if not z.size:
            break
        mant[z] //= 10
        expo[z] -= 1
    return mant, expo, ok


_EXP_WORDS = np.array([0] + [_word(b"e-%d" % e) for e in range(1, 28)], np.uint32)


def _framed(a, lead=b"", neg=None, trail=b""):
    """Words of the non-negative int64 array a framed: the bytes lead, then
    '-' where neg, then the digits, then trail (NUL-padded on the left)."""
    words = _uint_words(a)
    signed = neg is not None and bool(neg.any())
    if not (lead or signed or trail):
        return words
    n, nw = words.shape
    digits = words.view(np.uint8).reshape(n, 4 * nw)
    nd = np.maximum(np.searchsorted(_POW10_INT, a, side="right"), 1)
    maxd = int(nd.max()) if n else 1
    width = -(-(len(lead) + signed + maxd + len(trail)) // 4) * 4
    out = np.zeros((n, width), np.uint8)
    off = width - len(trail) - maxd
    out[:, off:off + maxd] = digits[:, 4 * nw - maxd:]
    if trail:
        out[:, width - len(trail):] = np.frombuffer(trail, np.uint8)
    first = off + maxd - nd  # the digits are right-aligned
    if signed:
        rows = np.flatnonzero(neg)
        out[rows, first[rows] - 1] = ord("-")
        first = first - neg
    rows = np.arange(n)
    for k, c in enumerate(reversed(lead)):
        out[rows, first - 1 - k] = c
    return out.view("<u4")


def _value_words(v, signed=True, lead=b""):
    """Words of float64 values v (finite), after the bytes lead: with their
    sign, or (signed False) of their magnitude only."""
    n = v.shape[0]
    a = np.abs(v)
    neg = v < 0 if signed else None
    integral = (a == np.rint(a)) & (a < _TWO53)
    if integral.all():
        return _framed(a.astype(np.int64), lead=lead, neg=neg)
    mant = np.zeros(n, np.int64)
    expo = np.zeros(n, np.int64)
    mant[integral] = a[integral].astype(np.int64)
    fi = np.flatnonzero(~integral)
    m, e, ok = _exact_mantissa(a[fi])
    mant[fi[ok]], expo[fi[ok]] = m[ok], e[ok]
    words = np.concatenate([_framed(mant, lead=lead, neg=neg), _EXP_WORDS[expo][:, None]], axis=1)
    slow = fi[~ok]
    if slow.size:
        # NumPy's repr, the shortest round trip.
        txt = np.char.add(lead, (v[slow] if signed else a[slow]).astype("S32"))
        nb = -(-txt.dtype.itemsize // 4) * 4
        txt = txt.astype("S%d" % nb).view("<u4").reshape(slow.size, -1)
        if txt.shape[1] > words.shape[1]:
            words = np.concatenate([np.zeros((n, txt.shape[1] - words.shape[1]), np.uint32), words], axis=1)
        words[slow] = 0
        words[slow, :txt.shape[1]] = txt
    return words


_tables = [np.zeros((0, 1), np.uint32), np.zeros((0, 1), np.uint32)]


def _index_table(top):
    """The words of " j+1:" and " j+1:-" for every column j ≤ top, kept
    across calls (the chunks of one matrix, then its predictions)."""
    pos, minus = _tables
    if pos.shape[0] <= top:
        cols = np.arange(1, max(top + 1, 2 * pos.shape[0]) + 1, dtype=np.int64)
        pos, minus = _framed(cols, lead=b" ", trail=b":"), _framed(cols, lead=b" ", trail=b":-")
        if minus.shape[1] > pos.shape[1]:
            pos = np.concatenate([np.zeros((pos.shape[0], 1), np.uint32), pos], axis=1)
        _tables[:] = pos, minus
    return pos, minus


def _index_words(indices, neg):
    """The words of " j+1:" for each column j of indices, or " j+1:-" where
    neg (the value's sign: a table lookup is cheaper than framing it into
    the value). From a table of the columns when it is not much longer
    than indices (text data: few columns, many nonzeros)."""
    top = int(indices.max())
    if top < (1 << 22) or top < 4 * indices.shape[0]:
        pos, minus = _index_table(top)
        return np.where(neg[:, None], minus[indices], pos[indices]) if neg.any() else pos[indices]
    cols = indices + 1
    pos = _framed(cols, lead=b" ", trail=b":")
    if not neg.any():
        return pos
    minus = _framed(cols, lead=b" ", trail=b":-")
    if minus.shape[1] > pos.shape[1]:
        pos = np.concatenate([np.zeros((pos.shape[0], 1), np.uint32), pos], axis=1)
    return np.where(neg[:, None], minus, pos)


def libsvm_lines(indptr, indices, data, labels):
    """LIBSVM text of the CSR rows (indptr, indices, data) with labels
    (one float64 per row). Column j is written as index j + 1 (LIBSVM counts
    from 1, as sklearn's dump_svmlight_file does); zero values are dropped,
    as the parser drops them."""
    indptr = np.asarray(indptr, np.int64)
    indices = np.asarray(indices, np.int64)
    data = np.asarray(data, np.float64)
    nrows = indptr.shape[0] - 1
    if nrows <= 0:
        return b""
    keep = data != 0
    if not keep.all():
        row = np.repeat(np.arange(nrows), np.diff(indptr))[keep]
        indices, data = indices[keep], data[keep]
        indptr = np.concatenate([[0], np.cumsum(np.bincount(row, minlength=nrows))])
    nnz = indices.shape[0]
    # Each label starts its line: the newline in front (dropped below for
    # the first line).
    lw = _value_words(np.asarray(labels, np.float64), lead=b"\n")
    if nnz == 0:
        rows = lw
    elif (np.diff(indptr) > 0).all():
        # One row per feature, the line's label in front of its first.
        first = np.zeros((nnz, lw.shape[1]), np.uint32)
        first[indptr[:-1]] = lw
        rows = np.concatenate([first, _index_words(indices, data < 0),
                               _value_words(data, signed=False)], axis=1)
    else:
        # Empty lines: the labels get rows of their own, at indptr[i] + i.
        feat = np.concatenate([_index_words(indices, data < 0), _value_words(data, signed=False)], axis=1)
        width = max(lw.shape[1], feat.shape[1])
        rows = np.zeros((nrows + nnz, width), np.uint32)
        lab_at = indptr[:-1] + np.arange(nrows)
        rows[lab_at, width - lw.shape[1]:] = lw
        is_feat = np.ones(nrows + nnz, bool)
        is_feat[lab_at] = False
        rows[np.flatnonzero(is_feat), width - feat.shape[1]:] = feat
    flat = rows.view(np.uint8).reshape(-1)
    return flat[flat != 0][1:].tobytes() + b"\n"
