package table

import (
	"testing"
	"time"
)

func TestAge(t *testing.T) {
	now := time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		ago  time.Duration
		want string
	}{
		{-2 * time.Second, "<invalid>"},
		{-500 * time.Millisecond, "0s"},
		{0, "0s"},
		{59 * time.Second, "59s"},
		{119 * time.Second, "119s"},
		{120 * time.Second, "2m"},
		{125 * time.Second, "2m5s"},
		{9*time.Minute + 59*time.Second, "9m59s"},
		{10*time.Minute + 30*time.Second, "10m"},
		{179 * time.Minute, "179m"},
		{3 * time.Hour, "3h"},
		{3*time.Hour + 5*time.Minute, "3h5m"},
		{8 * time.Hour, "8h"},
		{47 * time.Hour, "47h"},
		{48 * time.Hour, "2d"},
		{50 * time.Hour, "2d2h"},
		{8 * 24 * time.Hour, "8d"},
		{729 * 24 * time.Hour, "729d"},
		{730 * 24 * time.Hour, "2y"},
		{731 * 24 * time.Hour, "2y1d"},
		{8 * 365 * 24 * time.Hour, "8y"},
	} {
		if got := Age(now.Add(-tt.ago), now); got != tt.want {
			t.Errorf("Age(now-%v) = %q; want %q", tt.ago, got, tt.want)
		}
	}
	if got := Age(time.Time{}, now); got != "<unknown>" {
		t.Errorf("Age(zero) = %q; want <unknown>", got)
	}
}
