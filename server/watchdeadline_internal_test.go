package server

import (
	"net/http"
	"testing"
	"testing/synctest"
	"time"
)

// deadlineWriter records the write deadlines set on it.
type deadlineWriter struct {
	http.ResponseWriter
	set []time.Time
}

func (w *deadlineWriter) SetWriteDeadline(t time.Time) error {
	w.set = append(w.set, t)
	return nil
}

// A watch stream's writes are bounded by WriteTimeout, or by the watch's
// end if that comes first, but a deadline is not set again for every
// event: only once the one set would end a write armSlack or more before
// its due time.
func TestWatchDeadlineArm(t *testing.T) {
	const timeout = 10 * time.Second
	slack := armSlack(timeout)
	for _, tc := range []struct {
		name  string
		end   time.Duration // the watch's end, from its start
		steps []time.Duration
		want  []time.Duration // the deadlines set, from the start
	}{
		{"events at once share one deadline", time.Hour,
			[]time.Duration{0, 0, 0}, []time.Duration{timeout}},
		{"events within the slack keep it", time.Hour,
			[]time.Duration{0, slack / 2, slack/2 - time.Nanosecond}, []time.Duration{timeout}},
		{"an event past the slack moves it", time.Hour,
			[]time.Duration{0, slack - time.Nanosecond, time.Nanosecond, 3 * slack},
			[]time.Duration{timeout, timeout + slack, timeout + 4*slack}},
		{"the watch's end bounds it and is kept", 5 * time.Second,
			[]time.Duration{0, time.Second, time.Second}, []time.Duration{5 * time.Second}},
		{"the end within the slack keeps it", timeout + slack/2,
			[]time.Duration{0, slack}, []time.Duration{timeout}},
		{"past the watch's end, WriteTimeout", 0,
			[]time.Duration{0, 0}, []time.Duration{timeout}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				start := time.Now()
				w := &deadlineWriter{}
				d := &watchDeadline{rc: http.NewResponseController(w), end: start.Add(tc.end), timeout: timeout}
				for _, step := range tc.steps {
					time.Sleep(step)
					d.arm()
					// Whatever was kept, the write now in flight ends
					// within WriteTimeout and not armSlack before it.
					now := time.Now()
					due := now.Add(timeout)
					if d.end.After(now) && d.end.Before(due) {
						due = d.end
					}
					if got := w.set[len(w.set)-1]; got.After(due) || !got.After(due.Add(-slack)) {
						t.Errorf("at %v: deadline %v, want in (%v, %v]", now.Sub(start), got.Sub(start), due.Add(-slack).Sub(start), due.Sub(start))
					}
				}
				var got []time.Duration
				for _, s := range w.set {
					got = append(got, s.Sub(start))
				}
				if len(got) != len(tc.want) {
					t.Fatalf("deadlines set %v, want %v", got, tc.want)
				}
				for i := range got {
					if got[i] != tc.want[i] {
						t.Errorf("deadlines set %v, want %v", got, tc.want)
						break
					}
				}
			})
		})
	}
}
