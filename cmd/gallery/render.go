package main

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/convbench/convbench/convolve"
	"github.com/convbench/convbench/convolve/testimage"
)

// sceneSize is the size of the gallery's input scene.
var sceneSize = convolve.Geometry{Width: 480, Height: 320, Channels: 3, Type: convolve.Uint8}

// render applies every library filter, and the Sobel magnitude, to
// testimage.Scene and returns the files by name: input.png, a PNG per
// filter and README.md, to which note is added. Each image is made by the
// first of variants whose capabilities cover its problem; any other error
// of a variant ends it. Signed responses are shown as normalised
// magnitudes, the others clamped to 0..255.
func render(note string, variants ...string) (map[string][]byte, error) {
	if len(variants) == 0 {
		return nil, errors.New("no variant named")
	}
	vs := make([]convolve.Variant, len(variants))
	for i, name := range variants {
		v, err := convolve.Lookup(name)
		if err != nil {
			return nil, err
		}
		vs[i] = v
	}
	in, err := testimage.Scene(sceneSize)
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	var b bytes.Buffer
	if err := testimage.WritePNG(&b, in); err != nil {
		return nil, err
	}
	files["input.png"] = bytes.Clone(b.Bytes())
	var md strings.Builder
	by := "`" + variants[0] + "`"
	if n := len(variants); n > 1 {
		by = "the first of `" + strings.Join(variants[:n-1], "`, `") + "` and `" + variants[n-1] + "` that supports it"
	}
	fmt.Fprintf(&md, "# Filter gallery\n\nEvery library filter applied to the generated scene `input.png` (%dx%d RGB, replicate border) by %s. ", sceneSize.Width, sceneSize.Height, by)
	md.WriteString("Blurs, sharpen and emboss are clamped to 0..255; signed responses are shown as normalised magnitudes.")
	if note != "" {
		md.WriteString(" " + note)
	}
	md.WriteString("\n\n| filter | output | variant | shown as |\n|---|---|---|---|\n| input | ![input](input.png) | | as generated |\n")
	type job struct {
		name string
		p    convolve.Problem
		abs  bool
	}
	var jobs []job
	for _, f := range convolve.Library() {
		jobs = append(jobs, job{f.Name, convolve.Problem{Op: convolve.Filter2D, Input: in.Geometry, Filter: f, Border: convolve.Replicate}, signed(f)})
	}
	jobs = append(jobs, job{"sobel-mag", convolve.Problem{Op: convolve.SobelMagnitude, Input: in.Geometry, Border: convolve.Replicate}, true})
	for _, j := range jobs {
		plan, by, err := planFirst(vs, j.p)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", j.name, err)
		}
		out, err := j.p.NewOutput()
		if err == nil {
			err = plan.Run(in, out)
		}
		if cerr := plan.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, fmt.Errorf("%s by %s: %w", j.name, by, err)
		}
		var vis *convolve.Image
		how := "clamped"
		if j.abs {
			vis, err = testimage.ToUint8Normalize(out, true)
			how = "magnitude, normalised"
		} else {
			vis, err = testimage.ToUint8Clamp(out)
		}
		if err != nil {
			return nil, err
		}
		b.Reset()
		if err := testimage.WritePNG(&b, vis); err != nil {
			return nil, err
		}
		files[j.name+".png"] = bytes.Clone(b.Bytes())
		fmt.Fprintf(&md, "| %s | ![%s](%s.png) | %s | %s |\n", j.name, j.name, j.name, by, how)
	}
	files["README.md"] = []byte(md.String())
	return files, nil
}

// planFirst plans p with the first variant of vs whose capabilities
// cover it, and returns the plan and that variant's name.
func planFirst(vs []convolve.Variant, p convolve.Problem) (convolve.Plan, string, error) {
	var refused []string
	for _, v := range vs {
		name := v.Describe().Name
		plan, err := convolve.PlanFor(v, p, convolve.Config{})
		if err == nil {
			return plan, name, nil
		}
		var ce *convolve.CapabilityError
		if !errors.As(err, &ce) {
			return nil, name, err
		}
		refused = append(refused, err.Error())
	}
	return nil, "", fmt.Errorf("no variant supports it: %s", strings.Join(refused, "; "))
}

// signed reports whether a filter's response is signed: some weight is
// negative and the weights do not sum to one.
func signed(f *convolve.Filter) bool {
	sum, neg := 0.0, false
	for _, w := range f.Weights {
		sum += float64(w)
		neg = neg || w < 0
	}
	return neg && math.Abs(sum-1) > 1e-3
}

// renderedByGPU reports whether the gallery README in dir names a GPU
// variant in its variant column.
func renderedByGPU(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		cells := strings.Split(line, "|")
		if len(cells) != 6 { // "", filter, output, variant, shown as, ""
			continue
		}
		v, err := convolve.Lookup(strings.TrimSpace(cells[3]))
		if err == nil && v.Describe().Caps.GPU {
			return true
		}
	}
	return false
}
