package meta_test

import (
	"testing"

	"github.com/apisem/apisem/meta"
)

func TestUUIDv4(t *testing.T) {
	for _, tt := range []struct {
		b    [16]byte
		want string
	}{
		{[16]byte{}, "00000000-0000-4000-8000-000000000000"},
		{[16]byte{0: 0xff, 1: 0xff, 2: 0xff, 3: 0xff, 4: 0xff, 5: 0xff, 6: 0xff, 7: 0xff, 8: 0xff, 9: 0xff, 10: 0xff, 11: 0xff, 12: 0xff, 13: 0xff, 14: 0xff, 15: 0xff},
			"ffffffff-ffff-4fff-bfff-ffffffffffff"},
		{[16]byte{0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0},
			"12345678-9abc-4ef0-9234-56789abcdef0"},
	} {
		if got := meta.UUIDv4(tt.b); got != tt.want {
			t.Errorf("UUIDv4(%x) = %s, want %s", tt.b, got, tt.want)
		}
	}
}
