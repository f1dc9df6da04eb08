package tune

import (
	"errors"
	"testing"

	"github.com/convbench/convbench/convolve"
)

// scaled is cpu-naive with every output multiplied by 1 + 2^-9: within
// the BF16 model's operand rounding (2^-7 of each output's sum of
// |terms|), far outside the Direct bound. It declares the model given.
type scaled struct{ model convolve.ErrorModel }

func (s scaled) Describe() convolve.Description {
	return convolve.Description{Name: "scaled-" + s.model.String(), Caps: convolve.Capabilities{
		Ops: []convolve.Operation{convolve.Filter2D}, Types: []convolve.ElemType{convolve.Float32},
		Borders: []convolve.Border{convolve.Zero}, Accuracy: s.model,
	}}
}

func (s scaled) Plan(p convolve.Problem, cfg convolve.Config) (convolve.Plan, error) {
	naive, err := convolve.Lookup("cpu-naive")
	if err != nil {
		return nil, err
	}
	inner, err := naive.Plan(p, cfg)
	if err != nil {
		return nil, err
	}
	return scaledPlan{inner}, nil
}

type scaledPlan struct{ convolve.Plan }

func (p scaledPlan) Run(in, out *convolve.Image) error {
	if err := p.Plan.Run(in, out); err != nil {
		return err
	}
	for i := range out.F32 {
		out.F32[i] *= 1 + 0x1p-9
	}
	return nil
}

// TestVerifyUsesDeclaredModel: Verify passes the scaled variant when it
// declares BF16 and reports it wrong when it declares Direct.
func TestVerifyUsesDeclaredModel(t *testing.T) {
	caps := scaled{}.Describe().Caps
	ps, err := verifyProblems(Class{Type: convolve.Float32, K: 3, Size: convolve.SizeSmall}, caps, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := Verify(scaled{convolve.BF16}, convolve.Setting{}, ps, 1); err != nil {
		t.Errorf("declaring bf16: %v", err)
	}
	if err := Verify(scaled{convolve.Direct}, convolve.Setting{}, ps, 1); !isWrong(err) {
		t.Errorf("declaring direct: %v, want an error isWrong reports", err)
	}
}

// isWrong reports whether err is Verify's error for an output that
// differs from the reference.
func isWrong(err error) bool {
	var w *wrongError
	return errors.As(err, &w)
}
