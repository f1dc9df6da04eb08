package testimage

import (
	"bufio"
	"fmt"
	"io"
	"strconv"

	"github.com/convbench/convbench/convolve"
)

// pnmKinds are the binary PNM kinds by magic: their name and channels.
var pnmKinds = map[string]struct {
	name     string
	channels int
}{"P5": {"PGM", 1}, "P6": {"PPM", 3}}

// WritePGM writes a 1-channel u8 image as binary PGM (P5, maxval 255).
func WritePGM(w io.Writer, im *convolve.Image) error { return writePNM(w, "P5", im) }

// WritePPM writes a 3-channel u8 image as binary PPM (P6, maxval 255).
func WritePPM(w io.Writer, im *convolve.Image) error { return writePNM(w, "P6", im) }

func writePNM(w io.Writer, magic string, im *convolve.Image) error {
	if err := checkU8(pnmKinds[magic].name, im, pnmKinds[magic].channels); err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%s\n%d %d\n255\n", magic, im.Width, im.Height)
	if err := writeSamples(bw, im); err != nil {
		return err
	}
	return bw.Flush()
}

// ReadPGM reads a binary PGM (P5) with maxval 255 into a packed 1-channel
// u8 image, refusing one over MaxPixels from the header.
func ReadPGM(r io.Reader) (*convolve.Image, error) { return readPNM(r, "P5") }

// ReadPPM reads a binary PPM (P6) with maxval 255 into a packed,
// interleaved 3-channel u8 image, under MaxPixels as ReadPGM.
func ReadPPM(r io.Reader) (*convolve.Image, error) { return readPNM(r, "P6") }

func readPNM(r io.Reader, want string) (*convolve.Image, error) {
	br := bufio.NewReader(r)
	magic := make([]byte, 2)
	if _, err := io.ReadFull(br, magic); err != nil {
		return nil, fmt.Errorf("testimage: PNM header: %w", err)
	}
	format := string(magic)
	kind, ok := pnmKinds[format]
	if !ok {
		return nil, fmt.Errorf("testimage: PNM magic %q: want P5 (PGM) or P6 (PPM)", magic)
	}
	if want != "" && format != want {
		return nil, fmt.Errorf("testimage: PNM magic %s: want %s", format, want)
	}
	var vals [3]int
	for i, name := range []string{"width", "height", "maxval"} {
		v, err := pnmInt(br)
		if err != nil {
			return nil, fmt.Errorf("testimage: %s %s: %w", format, name, err)
		}
		vals[i] = v
	}
	if vals[2] != 255 {
		return nil, fmt.Errorf("testimage: %s maxval %d: only 255 is supported", format, vals[2])
	}
	// Exactly one whitespace byte separates the header from the data.
	if b, err := br.ReadByte(); err != nil || !isSpace(b) {
		return nil, fmt.Errorf("testimage: %s: no whitespace after maxval", format)
	}
	if err := checkHeader(kind.name, int64(vals[0]), int64(vals[1]), kind.channels, convolve.Uint8); err != nil {
		return nil, err
	}
	g := convolve.Geometry{Width: vals[0], Height: vals[1], Channels: kind.channels, Type: convolve.Uint8}
	n := g.Len()
	// Read what is there before trusting the header's size, so a short
	// file with a huge header allocates only what it holds.
	data, err := io.ReadAll(io.LimitReader(br, int64(n)))
	if err != nil {
		return nil, fmt.Errorf("testimage: %s data: %w", format, err)
	}
	if len(data) < n {
		return nil, fmt.Errorf("testimage: %s truncated: %d of %d data bytes for %dx%d", format, len(data), n, g.Width, g.Height)
	}
	return convolve.WrapUint8(g, data)
}

func isSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\v' || b == '\f'
}

// pnmInt skips whitespace and # comments and reads a decimal number.
func pnmInt(br *bufio.Reader) (int, error) {
	var digits []byte
	for {
		b, err := br.ReadByte()
		if err != nil {
			return 0, fmt.Errorf("header ends early: %w", err)
		}
		switch {
		case b == '#' && len(digits) == 0:
			if _, err := br.ReadBytes('\n'); err != nil {
				return 0, fmt.Errorf("header ends in a comment: %w", err)
			}
		case isSpace(b) && len(digits) == 0:
		case b >= '0' && b <= '9':
			if len(digits) >= 10 {
				return 0, fmt.Errorf("number %s... too long", digits)
			}
			digits = append(digits, b)
		case len(digits) > 0 && (isSpace(b) || b == '#'):
			if err := br.UnreadByte(); err != nil {
				return 0, err
			}
			return strconv.Atoi(string(digits))
		default:
			return 0, fmt.Errorf("unexpected byte %q in header", b)
		}
	}
}
