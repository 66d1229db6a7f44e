package app

import (
	"flag"
	"io"
	"testing"

	"github.com/apisem/apisem/server/connlimit"
)

func TestConnectionFlags(t *testing.T) {
	tests := []struct {
		args []string
		want connlimit.Limits
	}{
		{nil, connlimit.Limits{}},
		{[]string{"-max-connections=1000", "-max-connections-per-client=50", "-health-connection-reserve=20"},
			connlimit.Limits{Max: 1000, MaxPerClient: 50, Reserve: 20}},
		{[]string{"-max-connections=-1", "-max-connections-per-client=-1"}, connlimit.Limits{Max: -1, MaxPerClient: -1}},
	}
	for _, tt := range tests {
		var c Config
		fs := flag.NewFlagSet("apiserver", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		c.Register(fs)
		if err := fs.Parse(tt.args); err != nil {
			t.Fatal(err)
		}
		got := c.Server.Limits.Connections
		if got.Max != tt.want.Max || got.MaxPerClient != tt.want.MaxPerClient || got.Reserve != tt.want.Reserve || got.Health != nil {
			t.Errorf("%q: Connections = %+v; want %+v", tt.args, got, tt.want)
		}
	}
}
