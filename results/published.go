package results

// The source reports' own measurements, as printed in their tables: times
// in ms, speedups CPU time over GPU time.

// published000Sweep is one sweep of report 000's tables, a value per
// point: CPU (nil where not printed), V1, V1c and V2 times.
type published000Sweep struct {
	CPU, V1, V1c, V2 []float64
}

// published000 holds report 000's sweeps of one GPU over sizes000, ks000 and blocks000.
type published000 struct {
	GPU                      string
	ImageSize, Kernel, Block published000Sweep
}

// report000 is report 000's tables 5.5 to 5.10.
var report000 = []published000{
	{GPU: "GeForce GTX 1050 Ti",
		ImageSize: published000Sweep{ // table 5.5, over sizes000
			CPU: []float64{1.00, 3.99, 16.11, 65.99, 265.23},
			V1:  []float64{0.017, 0.073, 0.287, 1.132, 4.500},
			V1c: []float64{0.020, 0.072, 0.270, 1.047, 4.176},
			V2:  []float64{0.030, 0.103, 0.385, 1.519, 5.819}},
		Kernel: published000Sweep{ // table 5.7, over ks000
			CPU: []float64{16.29, 35.73, 67.68},
			V1:  []float64{0.274, 0.600, 0.968},
			V1c: []float64{0.260, 0.556, 0.862},
			V2:  []float64{0.356, 0.402, 0.510}},
		Block: published000Sweep{ // table 5.9, over blocks000
			V1:  []float64{2.555, 2.407, 2.305, 2.265, 2.303},
			V1c: []float64{2.292, 2.215, 2.047, 2.063, 2.100},
			V2:  []float64{1.558, 1.588, 1.418, 1.870, 2.043}}},
	{GPU: "Tesla T4",
		ImageSize: published000Sweep{ // table 5.6, over sizes000
			CPU: []float64{0.90, 3.58, 14.66, 60.01, 257.72},
			V1:  []float64{0.014, 0.033, 0.102, 0.407, 1.853},
			V1c: []float64{0.017, 0.033, 0.100, 0.383, 1.707},
			V2:  []float64{0.020, 0.044, 0.123, 0.470, 2.158}},
		Kernel: published000Sweep{ // table 5.8, over ks000
			CPU: []float64{16.97, 34.99, 66.66},
			V1:  []float64{0.122, 0.249, 0.463},
			V1c: []float64{0.116, 0.216, 0.338},
			V2:  []float64{0.147, 0.222, 0.350}},
		Block: published000Sweep{ // table 5.10, over blocks000
			V1:  []float64{1.545, 0.980, 0.855, 0.903, 0.973},
			V1c: []float64{1.277, 0.849, 0.821, 0.861, 0.886},
			V2:  []float64{0.866, 0.846, 0.688, 0.789, 0.898}}},
}

// report001GPU is the GPU of report 001.
const report001GPU = "GeForce RTX 3060 Ti"

// report001Sizes are the image sides of report 001's tables 1 and 2.
var report001Sizes = []string{"512x512", "1024x1024", "1920x1920", "2560x2560", "3840x3840", "4096x4096"}

// report001Speedup is report 001's tables 1 and 2, by variant and filter.
var report001Speedup = map[string]map[string][]float64{
	"gpu-naive": { // table 1
		"prewitt-x": {69.7, 79.4, 93.7, 100.0, 72.5, 74.0},
		"gauss5":    {215.3, 269.1, 206.5, 211.4, 220.5, 221.7},
		"gauss7":    {386.4, 459.1, 370.4, 376.6, 395.0, 396.0},
		"log5":      {215.7, 262.5, 209.0, 208.6, 220.4, 222.0},
		"sharpen":   {83.8, 103.1, 79.3, 80.1, 83.6, 84.0},
	},
	"gpu-shared": { // table 2
		"prewitt-x": {79.3, 89.7, 89.4, 100.0, 72.8, 73.3},
		"gauss5":    {279.0, 339.2, 268.0, 266.6, 276.2, 277.7},
		"gauss7":    {469.9, 559.8, 444.7, 443.2, 458.1, 463.7},
		"log5":      {260.7, 311.4, 241.8, 238.9, 254.9, 254.3},
		"sharpen":   {108.9, 130.3, 102.4, 102.4, 106.7, 107.4},
	},
}

// Report001KernelRow is one K of report 001's tables 3 and 4.
type Report001KernelRow struct {
	K                                        string
	GaussSpeedup, GaussMS, BoxSpeedup, BoxMS float64
}

// report001KernelSize is report 001's tables 3 (global) and 4 (shared).
var report001KernelSize = map[string][]Report001KernelRow{
	"gpu-naive": { // table 3
		{"3", 78.7, 9.1, 78.3, 9.1}, {"5", 207.5, 9.5, 207.3, 9.5}, {"7", 369.2, 10.1, 369.2, 10.1},
		{"9", 563.4, 10.8, 565.5, 10.7}, {"11", 769.8, 11.6, 780.6, 11.5}, {"15", 1199.9, 13.7, 1203.7, 13.6},
		{"21", 1724.5, 18.3, 1724.1, 18.3},
	},
	"gpu-shared": { // table 4
		{"3", 80.3, 9.0, 81.6, 8.9}, {"5", 209.4, 9.5, 214.2, 9.3}, {"7", 396.8, 9.6, 377.5, 10.0},
		{"9", 609.9, 10.1, 609.4, 10.0}, {"11", 845.5, 10.7, 843.0, 10.7}, {"15", 1315.4, 12.6, 1333.3, 12.4},
		{"21", 1987.2, 16.1, 1990.3, 16.1},
	},
}

// Report001TunedRow is one filter of report 001's table 5.
type Report001TunedRow struct {
	Filter, Block               string
	Global, Shared, TunedShared float64
}

// report001Tuned is report 001's table 5.
var report001Tuned = []Report001TunedRow{
	{"prewitt-x", "16x8", 95.0, 94.1, 94.3},
	{"gauss5", "32x16", 212.6, 247.8, 258.1},
	{"gauss7", "32x16", 380.9, 440.9, 442.3},
	{"log5", "16x8", 213.0, 244.7, 266.7},
	{"sharpen", "16x16", 80.5, 102.4, 103.5},
}

// report002GPU is the GPU of report 002 (memory-type study).
const report002GPU = "GeForce GTX 1060 6GB"

// Report002Row is one row of report 002's table 1.
type Report002Row struct {
	Method           string
	Variant          string // our variant for the same design, "" if none
	KernelMS, CopyMS float64
}

var report002Table1 = []Report002Row{
	{"Texture and Shared", "gpu-texture-shared", 21.77, 1.18},
	{"Constant and Shared", "gpu-shared", 21.83, 1.15},
	{"Constant and Shared Row Wise", "gpu-shared-rows", 22.07, 1.16},
	{"Constant and Shared (Bad) V2", "", 22.83, 1.16},
	{"Constant and Shared (Bad) V1", "", 24.21, 1.17},
	{"Constant", "gpu-const", 37.85, 1.18},
	{"Texture with Padding", "", 38.81, 1.17},
	{"Texture without Padding", "gpu-texture", 38.82, 1.12},
	{"Naive without padding", "gpu-naive", 48.58, 1.18},
	{"Naive", "gpu-naive-padded", 49.89, 1.21},
	{"Texture Image and Filter", "gpu-texture-filter", 79.59, 1.24},
	{"Serial", "cpu-naive", 5694.88, 0},
}

// report003GPU is the GPU of report 003.
const report003GPU = "RTX A2000 12GB"

// report003Methods are the columns of report 003's tables 1 and 3.
var report003Methods = []string{"1channel-noConst", "3channel-grid", "3channel", "3channel-3", "1channel", "Seq"}

// report003Variants are our variants for report003Methods, "" for none.
var report003Variants = []string{"", "gpu-ch-grid3d", "gpu-ch-linear", "gpu-ch-arrays", "gpu-ch-loop", "cpu-naive"}

// report003Row is one row of report 003's tables 1 and 3.
type report003Row struct {
	Axis  string
	Times []float64
}

// report003KernelSize is table 1 (1000x1000 RGB, box K).
var report003KernelSize = []report003Row{
	{"3", []float64{1.89, 8.73, 2.83, 2.48, 2.13, 28.88}},
	{"9", []float64{2.48, 11.22, 4.27, 2.66, 2.38, 232.30}},
	{"17", []float64{4.87, 8.27, 4.86, 3.65, 3.67, 1004.94}},
	{"33", []float64{11.76, 23.23, 10.19, 9.42, 9.36, 3940.20}},
	{"63", []float64{39.07, 90.89, 30.55, 30.00, 29.71, 15379.80}},
	{"121", []float64{142.25, 467.18, 164.62, 104.56, 163.21, 60764.00}},
}

// report003ImageSize is table 3 (box 11x11).
var report003ImageSize = []report003Row{
	{"100x100", []float64{0.21, 0.25, 0.21, 0.25, 0.20, 4.00}},
	{"100x1000", []float64{0.47, 0.80, 0.60, 0.46, 0.45, 44.45}},
	{"1000x1000", []float64{2.91, 11.10, 4.34, 2.88, 2.60, 462.52}},
	{"1000x10000", []float64{26.88, 106.37, 90.43, 23.71, 23.56, 4317.20}},
	{"10000x10000", []float64{521.08, 1225.91, 1027.72, 481.76, 489.77, 42243.00}},
	{"10000x100000", []float64{5828.72, 7413.29, 5904.32, 5323.00, 5354.60, 438437.00}},
}

// report004GPU is the GPU of report 004.
const report004GPU = "Tesla T4"

// Report004Row is one row of report 004's table I (1024x1024).
type Report004Row struct {
	Implementation string
	Op, Variant    string // our filter key and variant for the same design
	Tune           string // the variant's tune key for that design
	MS, MPixS, GBs float64
}

var report004TableI = []Report004Row{
	{"Sobel CPU Naive", "sobel-mag", "cpu-naive", "none", 163.1003, 6.43, 0.01},
	{"Sobel CPU Fast", "sobel-mag", "cpu-fast", "none", 1.2636, 829.83, 1.66},
	{"Sobel GPU Naive", "sobel-mag", "gpu-sobel", "default", 0.0637, 16461.16, 32.92},
	{"Sobel GPU Opt.", "sobel-mag", "gpu-sobel", "shared=1", 0.0598, 17534.72, 35.07},
	{"Gauss 2D CPU Naive", "gauss7", "cpu-naive", "none", 434.7314, 2.41, 0.00},
	{"Gauss 2D CPU Fast", "gauss7", "cpu-fast", "none", 198.0247, 5.30, 0.01},
	{"Gauss 2D GPU Naive", "gauss7", "gpu-naive", "default", 0.2773, 3781.38, 7.56},
	{"Gauss 2D GPU Opt.", "gauss7", "gpu-shared", "default", 0.1179, 8893.77, 17.79},
	{"Gauss Sep. CPU Naive", "gauss7", "", "", 111.0698, 9.44, 0.09},
	{"Gauss Sep. CPU Fast", "gauss7", "", "", 76.0997, 13.78, 0.14},
	{"Gauss Sep. GPU Naive", "gauss7", "gpu-separable", "shared=0", 0.1316, 7967.90, 79.68},
	{"Gauss Sep. GPU Opt.", "gauss7", "gpu-separable", "default", 0.1448, 7241.55, 72.42},
	{"RGB2YUV CPU Naive", "rgb2yuv", "cpu-naive", "none", 86.6562, 12.10, 0.07},
	{"RGB2YUV CPU Fast", "rgb2yuv", "cpu-fast", "none", 29.1893, 35.92, 0.22},
	{"RGB2YUV GPU Naive", "rgb2yuv", "gpu-rgb2yuv", "default", 0.0336, 31207.62, 187.25},
	{"RGB2YUV GPU Opt.", "rgb2yuv", "gpu-rgb2yuv", "opt=1", 0.0317, 33078.11, 198.47},
}

// openCVPeersSource says where openCVPeers were measured.
const openCVPeersSource = "issue 18 of this project: OpenCV 4.6 from the distribution, 2 threads, on the 2-core development host, median of 5"

// openCVPeersSize is the image of openCVPeers.
const openCVPeersSize = "2048x2048"

// OpenCVPeer is one quoted OpenCV time beside the cpu-peers case of the same filter.
type OpenCVPeer struct {
	Case     string  // "dense 3x3"
	Filter   string  // our filter key: "dense3", "gauss7"
	Function string  // the OpenCV call timed, with its path where named
	MS       float64 // milliseconds
}

// openCVPeers are OpenCV's quoted times at openCVPeersSize.
var openCVPeers = []OpenCVPeer{
	{"dense 3x3", "dense3", "filter2D", 2.78},
	{"dense 7x7", "dense7", "filter2D", 8.35},
	{"dense 21x21", "dense21", "filter2D (DFT path)", 72.7},
	{"Gaussian 3", "gauss3", "sepFilter2D", 2.05},
	{"Gaussian 7", "gauss7", "sepFilter2D", 3.79},
	{"Gaussian 21", "gauss21", "sepFilter2D", 10.3},
}
