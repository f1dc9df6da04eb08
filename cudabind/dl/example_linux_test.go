package dl_test

import (
	"fmt"

	"github.com/convbench/convbench/cudabind/dl"
)

// A binding is a table: each entry a Go function variable with the C
// prototype's shape and the names to try, versioned ones first.
func ExampleLibrary_Bind() {
	lib, err := dl.Open([]string{"libc.so.6"})
	if err != nil {
		fmt.Println(err)
		return
	}
	var (
		strlen func(s string) uintptr
		absent func() int32
	)
	err = lib.Bind([]dl.Symbol{
		dl.Func(&strlen, "strlen_v2", "strlen"),
		dl.OptionalFunc(&absent, "convbench_not_in_libc"),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(strlen("sm_90"), absent == nil)
	err = lib.Bind([]dl.Symbol{dl.Func(&absent, "cuInit")})
	fmt.Println(err)
	// Output:
	// 5 true
	// libc.so.6: missing symbol cuInit
}
