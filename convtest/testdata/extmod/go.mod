module example.com/extmod

go 1.26.0

require github.com/convbench/convbench v0.0.0

require (
	github.com/aclements/go-moremath v0.0.0-20210112150236-f10218a38794 // indirect
	github.com/ebitengine/purego v0.11.3 // indirect
	github.com/google/go-cmp v0.7.0 // indirect
	github.com/leanovate/gopter v0.2.11 // indirect
	golang.org/x/image v0.46.0 // indirect
	golang.org/x/perf v0.0.0-20260908200009-22c9c6c9d4da // indirect
	golang.org/x/sys v0.48.0 // indirect
	gonum.org/v1/gonum v0.16.0 // indirect
)

replace github.com/convbench/convbench => ../../..
