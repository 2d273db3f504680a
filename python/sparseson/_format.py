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


def _word(b):
    """The uint32 word whose bytes are b, NUL-padded on the right."""
    return int(np.frombuffer(b.ljust(4, b"\0"), "<u4")[0])


def _uint_words(a):
    """Decimal digits of the non-negative int64 array a as words, most
    significant first, shape (len(a), nw); 0 is "0"."""
    top = int(a.max()) if a.size else 0
    nw = max(1, (len(str(top)) + 3) // 4)
    out = np.zeros((a.shape[0], nw), np.uint32)
    higher = a
    for k in range(nw):  # group k: digits 4k..4k+3 from the right
        g, higher = higher % 10000, higher // 10000
        # Below the top group a word keeps its zeros ("0042"); the top
        # group does not ("42"), and groups above the top are empty.
        word = np.where(higher > 0, _PADDED[g], _PLAIN[g])
        if k > 0:
            word = np.where((higher > 0) | (g > 0), word, 0)
        out[:, nw - 1 - k] = word
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


def _value_words(v):
    """Words of float64 values v (finite) without their sign, and which are
    negative; a value given by repr carries its own sign (neg False)."""
    n = v.shape[0]
    a = np.abs(v)
    integral = (a == np.rint(a)) & (a < _TWO53)
    if integral.all():
        return _uint_words(a.astype(np.int64)), v < 0
    mant = np.zeros(n, np.int64)
    expo = np.zeros(n, np.int64)
    mant[integral] = a[integral].astype(np.int64)
    fi = np.flatnonzero(~integral)
    m, e, ok = _exact_mantissa(a[fi])
    mant[fi[ok]], expo[fi[ok]] = m[ok], e[ok]
    words = np.concatenate([_uint_words(mant), _EXP_WORDS[expo][:, None]], axis=1)
    neg = v < 0
    slow = fi[~ok]
    if slow.size:
        txt = v[slow].astype("S32")  # NumPy's repr, the shortest round trip
        nb = -(-txt.dtype.itemsize // 4) * 4
        txt = txt.astype("S%d" % nb).view("<u4").reshape(slow.size, -1)
        if txt.shape[1] > words.shape[1]:
            words = np.concatenate([np.zeros((n, txt.shape[1] - words.shape[1]), np.uint32), words], axis=1)
        words[slow] = 0
        words[slow, :txt.shape[1]] = txt
        neg[slow] = False
    return words, neg


_NL, _NL_MINUS = _word(b"\n"), _word(b"\n-")
_SPACE, _COLON, _COLON_MINUS = _word(b" "), _word(b":"), _word(b":-")


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
    lw, lneg = _value_words(np.asarray(labels, np.float64))
    iw = _uint_words(indices + 1)
    vw, vneg = _value_words(data) if nnz else (np.zeros((0, 1), np.uint32), np.zeros(0, bool))
    fwidth = 2 + iw.shape[1] + vw.shape[1]
    width = max(1 + lw.shape[1], fwidth)
    # Row r of a line's tokens: its label at indptr[i] + i (the newline in
    # front, dropped below), then its features.
    rows = np.zeros((nrows + nnz, width), np.uint32)
    lab_at = indptr[:-1] + np.arange(nrows)
    lab = np.zeros((nrows, width), np.uint32)
    lab[:, width - 1 - lw.shape[1]] = np.where(lneg, _NL_MINUS, _NL)
    lab[:, width - lw.shape[1]:] = lw
    rows[lab_at] = lab
    if nnz:
        feat = np.zeros((nnz, width), np.uint32)
        c = width - fwidth
        feat[:, c] = _SPACE
        feat[:, c + 1:c + 1 + iw.shape[1]] = iw
        feat[:, c + 1 + iw.shape[1]] = np.where(vneg, _COLON_MINUS, _COLON)
        feat[:, c + 2 + iw.shape[1]:] = vw
        is_feat = np.ones(nrows + nnz, bool)
        is_feat[lab_at] = False
        rows[is_feat] = feat
    flat = rows.view(np.uint8).reshape(-1)
    return flat[flat != 0][1:].tobytes() + b"\n"
