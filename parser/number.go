package parser

import (
	"math"
	"strconv"
	"unsafe"
)

// maxMagnitude bounds every number read from text. Beyond it a label,
// weight or value is almost surely a data error, and keeping values well
// inside float64 range means products and sums in the learners cannot
// overflow.
const maxMagnitude = 1e18

// Exact powers of ten for the fast path: every 10^k with k ≤ 22 is exactly
// representable as a float64.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// numStatus says why a number was not accepted.
type numStatus uint8

const (
	numOK numStatus = iota
	numSyntax
	numRange
)

// parseNumber reads a decimal number: optional sign, digits with an
// optional '.', optional exponent. It does not accept what strconv would
// beyond that (hex, "inf", "nan", underscores), and rejects magnitudes
// above maxMagnitude. It is exactly rounded: mantissas of at most 2^53 with
// small exponents are computed with one exact multiply or divide (the
// result is then correctly rounded by IEEE arithmetic, Clinger's fast
// path); anything else goes to strconv.ParseFloat.
func parseNumber(s []byte) (float64, numStatus) {
	i := 0
	neg := false
	if len(s) > 0 && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		i++
	}
	var mant uint64
	nd := 0          // digits held in mant, after leading zeros
	exp := 0         // decimal exponent to apply to mant
	digits := false  // saw any digit
	inexact := false // digits were dropped from mant
	for ; i < len(s); i++ {
		c := s[i] - '0'
		if c > 9 {
			break
		}
		digits = true
		switch {
		case nd < 19:
			mant = mant*10 + uint64(c)
			if mant != 0 {
				nd++
			}
		default:
			exp++
			if c != 0 {
				inexact = true
			}
		}
	}
	if i < len(s) && s[i] == '.' {
		i++
		for ; i < len(s); i++ {
			c := s[i] - '0'
			if c > 9 {
				break
			}
			digits = true
			if nd < 19 {
				mant = mant*10 + uint64(c)
				if mant != 0 {
					nd++
				}
				exp--
			} else if c != 0 {
				inexact = true
			}
		}
	}
	if !digits {
		return 0, numSyntax
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		eneg := false
		if i < len(s) && (s[i] == '-' || s[i] == '+') {
			eneg = s[i] == '-'
			i++
		}
		if i == len(s) {
			return 0, numSyntax
		}
		e := 0
		for ; i < len(s); i++ {
			c := s[i] - '0'
			if c > 9 {
				return 0, numSyntax
			}
			if e < 100000 {
				e = e*10 + int(c)
			}
		}
		if eneg {
			e = -e
		}
		exp += e
	}
	if i != len(s) {
		return 0, numSyntax
	}
	if mant == 0 {
		return 0, numOK
	}
	if !inexact && mant <= 1<<53 {
		f := float64(mant)
		ok := true
		switch {
		case exp == 0:
		case exp < 0 && exp >= -22:
			f /= pow10[-exp]
		case exp > 0 && exp <= 22:
			f *= pow10[exp]
		case exp > 22 && exp <= 22+15:
			// A small mantissa may absorb the excess exactly: 1e30 is
			// 1e8 · 1e22 with 1e8 still an exact integer.
			m := f * pow10[exp-22]
			if m <= 1<<53 {
				f = m * pow10[22]
			} else {
				ok = false
			}
		default:
			ok = false
		}
		if ok {
			if neg {
				f = -f
			}
			if f > maxMagnitude || f < -maxMagnitude {
				return 0, numRange
			}
			return f, numOK
		}
	}
	// The syntax is already checked, so strconv only has to round; the
	// unsafe view avoids allocating, and the error (which would keep the
	// string) is not retained.
	f, err := strconv.ParseFloat(unsafe.String(unsafe.SliceData(s), len(s)), 64)
	if err != nil && !isRangeErr(err) {
		return 0, numSyntax
	}
	if math.IsInf(f, 0) || f > maxMagnitude || f < -maxMagnitude {
		return 0, numRange
	}
	return f, numOK
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}
