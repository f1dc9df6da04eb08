package runfile

import (
	"fmt"
	"os"
	"slices"

	"golang.org/x/perf/benchfmt"
)

// Cases is the result lines of one run file by case, each case under the
// name the pairing rule gives it (PairingName), so that the cases of runs
// stored at different times, or on different hosts, pair by name.
type Cases struct {
	Path  string
	Names []string // the cases, in order of appearance
	// Values holds each case's values, by name and tidied unit ("sec/op").
	Values map[string]map[string][]float64
	Units  []string // tidied units, in order of appearance
	Meta   benchfmt.UnitMetadataMap
	Config map[string]string // the first result line's configuration
}

// ReadCases reads the run file at path. A BenchmarkConv line whose name
// does not parse (Parse) is an error naming the file and line; a file
// without result lines is not.
func ReadCases(path string) (*Cases, error) {
	r, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	c := &Cases{Path: path, Meta: benchfmt.UnitMetadataMap{}}
	rd := benchfmt.NewReader(r, path)
	for rd.Scan() {
		switch rec := rd.Result().(type) {
		case *benchfmt.Result:
			name := string(rec.Name)
			if base, _ := rec.Name.Parts(); string(base) == "Conv" {
				if name, err = PairingName(name); err != nil {
					file, line := rec.Pos()
					return nil, fmt.Errorf("%s:%d: %w", file, line, err)
				}
			}
			if c.Config == nil {
				c.Config = map[string]string{}
				for _, cfg := range rec.Config {
					c.Config[cfg.Key] = string(cfg.Value)
				}
			}
			for _, v := range rec.Values {
				c.Add(name, v.Unit, v.Value)
			}
		case *benchfmt.UnitMetadata:
			c.Meta[rec.UnitMetadataKey] = rec
		}
	}
	return c, rd.Err()
}

// Add records values of unit for the case name, adding the case and the
// unit where they are new.
func (c *Cases) Add(name, unit string, values ...float64) {
	if c.Values == nil {
		c.Values = map[string]map[string][]float64{}
	}
	byUnit, ok := c.Values[name]
	if !ok {
		byUnit = map[string][]float64{}
		c.Values[name] = byUnit
		c.Names = append(c.Names, name)
	}
	if !slices.Contains(c.Units, unit) {
		c.Units = append(c.Units, unit)
	}
	byUnit[unit] = append(byUnit[unit], values...)
}
