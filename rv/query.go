package rv

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/apisem/apisem/status"
)

// The query parameters of ListOptions, in the order of metav1.ListOptions'
// fields. Kubernetes decodes them in this order, so when several are bad
// the first one here names the 400.
const (
	pLabelSelector = iota
	pFieldSelector
	pWatch
	pAllowWatchBookmarks
	pResourceVersion
	pResourceVersionMatch
	pTimeoutSeconds
	pLimit
	pContinue
	pSendInitialEvents
	numParams
)

var paramNames = [numParams]string{
	"labelSelector", "fieldSelector", "watch", "allowWatchBookmarks",
	"resourceVersion", "resourceVersionMatch", "timeoutSeconds", "limit",
	"continue", "sendInitialEvents",
}

// maxParamName bounds the length of a parameter name ("resourceVersionMatch").
const maxParamName = 20

func paramIndex(name string) int {
	switch name {
	case "labelSelector":
		return pLabelSelector
	case "fieldSelector":
		return pFieldSelector
	case "watch":
		return pWatch
	case "allowWatchBookmarks":
		return pAllowWatchBookmarks
	case "resourceVersion":
		return pResourceVersion
	case "resourceVersionMatch":
		return pResourceVersionMatch
	case "timeoutSeconds":
		return pTimeoutSeconds
	case "limit":
		return pLimit
	case "continue":
		return pContinue
	case "sendInitialEvents":
		return pSendInitialEvents
	}
	return -1
}

// params is the first value of each ListOptions parameter, still raw.
type params struct {
	val [numParams]string
	set uint16 // bit i: parameter i was present
	raw uint16 // bit i: val[i] holds a %, + or ; and must go through value
}

// ParseQuery decodes the ListOptions parameters of a raw URL query string
// (r.URL.RawQuery) with Kubernetes' rules
// (k8s.io/apimachinery/pkg/runtime/conversion.go):
//
//   - only the first value of a repeated parameter counts;
//   - a bool is false for "0" or any case of "false", true for anything
//     else, the empty value included (`?watch` is a watch);
//   - an integer is strconv.ParseInt(v, 10, 64); a bad one is a 400
//     BadRequest whose message is the Go error text, e.g.
//     `strconv.ParseInt: parsing "abc": invalid syntax`;
//   - unknown parameters are ignored.
//
// It is ParseValues(r.URL.Query()) without building the map: values are
// substrings of rawQuery unless they hold a '%' or '+' escape. Where
// url.ParseQuery would silently drop a malformed pair, ParseQuery rejects
// the request if the pair is the value it would use: a bad %-escape or a
// raw ';' in such a value is a 400 naming the parameter. Malformed pairs it
// does not use (unknown names, repeated values) are ignored, as are
// pairs whose name is malformed.
//
// Every error is a *status.Error.
func ParseQuery(rawQuery string) (ListOptions, error) {
	var p params
	p.scan(rawQuery, 1<<numParams-1, nil)
	return p.decode()
}

// A Query is a raw URL query scanned once (ScanQuery): the first value of
// each ListOptions parameter, still escaped, which its methods decode with
// ParseQuery's rules. A server scans a request's query once and lets every
// stage read the result. The zero Query is an empty query.
type Query struct {
	p params
}

// ScanQuery scans rawQuery (r.URL.RawQuery) in one pass. The ListOptions
// parameters are kept in the Query; every other name=value pair is given
// to other, if not nil, in order, unescaped and filtered as url.ParseQuery
// does: a pair with a malformed escape or a ';' is dropped. Nothing is
// copied unless it is escaped.
func ScanQuery(rawQuery string, other func(name, value string)) Query {
	var q Query
	q.p.scan(rawQuery, 1<<numParams-1, other)
	return q
}

// ListOptions decodes the ListOptions parameters, as ParseQuery does.
func (q *Query) ListOptions() (ListOptions, error) { return q.p.decode() }

// Watch reports whether the query asks for a watch: its first watch
// parameter is true by QueryBool's rule. It reads that parameter alone,
// so a watch is a watch even where another parameter is malformed, as
// Kubernetes' RequestInfoFactory decides; a malformed watch value is no
// watch.
func (q *Query) Watch() bool {
	if !q.p.has(pWatch) {
		return false
	}
	v, err := q.p.value(pWatch)
	return err == nil && QueryBool(v)
}

// ResolveGet is ResolveGetQuery of the scanned query: it reads only the
// first resourceVersion parameter.
func (q *Query) ResolveGet() (Read, error) {
	v, err := q.p.value(pResourceVersion)
	if err != nil {
		return Read{}, err
	}
	return ResolveGet(v)
}

// ParseValues decodes the ListOptions parameters of an already decoded
// query, with the rules of ParseQuery. Every error is a *status.Error.
func ParseValues(q url.Values) (ListOptions, error) {
	var p params
	for i, name := range paramNames {
		// A name present with no values counts as absent, as in Kubernetes.
		if vs := q[name]; len(vs) > 0 {
			p.val[i] = vs[0]
			p.set |= 1 << i
		}
	}
	return p.decode()
}

// scan records the first raw value of each wanted parameter of rawQuery.
// It only slices: nothing is unescaped or copied yet. One pass over the
// bytes finds the pair and name boundaries and whether a name or value
// needs unescaping; this loop is most of the cost of a request's options.
// Pairs that are not ListOptions parameters go to other, if not nil (see
// ScanQuery).
func (p *params) scan(q string, want uint16, other func(name, value string)) {
	for q != "" {
		eq := -1 // index of the first '=' in the pair
		var escName, escVal bool
		i := 0
	bytes:
		for ; i < len(q); i++ {
			c := q[i]
			if !special[c] {
				continue
			}
			switch {
			case c == '&':
				break bytes
			case c == '=':
				if eq < 0 {
					eq = i
				}
			case eq < 0:
				escName = true
			default:
				escVal = true
			}
		}
		pair := q[:i]
		if i < len(q) {
			q = q[i+1:]
		} else {
			q = ""
		}
		name, val := pair, ""
		if eq >= 0 {
			name, val = pair[:eq], pair[eq+1:]
		}
		var k int
		if escName {
			k = escapedParamIndex(name)
		} else {
			k = paramIndex(name)
		}
		if k < 0 && other != nil {
			passOther(other, pair, name, val, escName || escVal)
			continue
		}
		if k < 0 || want&(1<<k) == 0 || p.set&(1<<k) != 0 {
			continue
		}
		p.set |= 1 << k
		p.val[k] = val
		if escVal {
			p.raw |= 1 << k
		}
	}
}

// passOther gives a pair that is not a ListOptions parameter to other, as
// url.ParseQuery would decode it, or drops it where url.ParseQuery would.
func passOther(other func(name, value string), pair, name, val string, escaped bool) {
	if pair == "" {
		return // "a&&b"
	}
	if escaped {
		if strings.IndexByte(pair, ';') >= 0 {
			return
		}
		var err error
		if name, err = url.QueryUnescape(name); err != nil {
			return
		}
		if val, err = url.QueryUnescape(val); err != nil {
			return
		}
	}
	other(name, val)
}

// special marks the bytes scan stops at: pair and name separators, and
// the bytes that make a name or value need unescaping (or, for ';',
// reject it).
var special = [256]bool{'&': true, '=': true, '%': true, '+': true, ';': true}

// escapedParamIndex is paramIndex for a name written with escapes
// ("resource%56ersion"). A malformed name matches nothing, as url.ParseQuery
// drops it.
func escapedParamIndex(name string) int {
	var buf [maxParamName]byte
	n := 0
	for i := 0; i < len(name); i++ {
		if n == len(buf) {
			return -1 // longer than any parameter name
		}
		c := name[i]
		switch c {
		case '+':
			c = ' '
		case '%':
			if i+2 >= len(name) || !isHex(name[i+1]) || !isHex(name[i+2]) {
				return -1
			}
			c = unhex(name[i+1])<<4 | unhex(name[i+2])
			i += 2
		case ';':
			return -1
		}
		buf[n] = c
		n++
	}
	return paramIndex(string(buf[:n]))
}

// value returns parameter i unescaped, or a 400 if it is malformed.
func (p *params) value(i int) (string, error) {
	s := p.val[i]
	if p.raw&(1<<i) == 0 {
		return s, nil
	}
	if strings.IndexByte(s, ';') >= 0 {
		return "", status.NewBadRequest("unable to decode query parameter " + strconv.Quote(paramNames[i]) +
			": invalid semicolon separator in query")
	}
	v, err := url.QueryUnescape(s)
	if err != nil {
		return "", status.NewBadRequest("unable to decode query parameter " + strconv.Quote(paramNames[i]) +
			": " + err.Error()).Wrap(err)
	}
	return v, nil
}

func (p *params) has(i int) bool { return p.set&(1<<i) != 0 }

// decode converts the recorded values into ListOptions, parameter by
// parameter in field order.
func (p *params) decode() (o ListOptions, err error) {
	if p.set == 0 {
		return o, nil
	}
	for i := 0; i < numParams; i++ {
		if !p.has(i) {
			continue
		}
		v, err := p.value(i)
		if err != nil {
			return ListOptions{}, err
		}
		switch i {
		case pLabelSelector:
			o.LabelSelector = v
		case pFieldSelector:
			o.FieldSelector = v
		case pWatch:
			o.Watch = QueryBool(v)
		case pAllowWatchBookmarks:
			o.AllowWatchBookmarks = QueryBool(v)
		case pResourceVersion:
			o.ResourceVersion = v
		case pResourceVersionMatch:
			o.ResourceVersionMatch = Match(v)
		case pTimeoutSeconds:
			if o.TimeoutSeconds, err = parseInt(v); err != nil {
				return ListOptions{}, err
			}
		case pLimit:
			if o.Limit, err = parseInt(v); err != nil {
				return ListOptions{}, err
			}
		case pContinue:
			o.Continue = v
		case pSendInitialEvents:
			o.SendInitialEvents = OptBoolOf(QueryBool(v))
		}
	}
	return o, nil
}

// QueryBool is Kubernetes' rule for a boolean query parameter
// (k8s.io/apimachinery/pkg/runtime/conversion.go): "0" and "false" in any
// case are false; anything else, the empty value included, is true
// (`?watch` is a watch).
func QueryBool(s string) bool {
	return s != "0" && !strings.EqualFold(s, "false")
}

func parseInt(s string) (int64, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, status.NewBadRequest(err.Error()).Wrap(err)
	}
	return n, nil
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}
