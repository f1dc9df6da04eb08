package variants

import "testing"

func TestTiledDefaultRY(t *testing.T) {
	tests := []struct{ kw, kh, want int }{
		{1, 1, 8}, {3, 3, 8}, {7, 7, 8}, {7, 9, 4}, {9, 9, 4}, {15, 15, 4},
		{23, 23, 4}, // (4+22)*23*4 = 2392
		{31, 31, 2}, // ry=4 would be 4216 multiply-adds, past the limit
		{61, 61, 1}, {63, 63, 1}, {101, 101, 1}, {125, 1, 4}, {1, 125, 4},
	}
	for _, tt := range tests {
		if got := TiledDefaultRY(tt.kw, tt.kh); got != tt.want {
			t.Errorf("TiledDefaultRY(%d, %d) = %d, want %d", tt.kw, tt.kh, got, tt.want)
		}
		if ry := TiledDefaultRY(tt.kw, tt.kh); ry > 1 && (ry+tt.kh-1)*tt.kw*ry > tiledUnrollLimit {
			t.Errorf("TiledDefaultRY(%d, %d) = %d leaves the row walk rolled", tt.kw, tt.kh, ry)
		}
	}
}
