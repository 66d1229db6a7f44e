package negotiation

import (
	"math/bits"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/apisem/apisem/status"
)

// MediaType is one of the serializations an endpoint can serve. Values are
// bits so that a set of them (JSON|YAML) describes what an endpoint serves.
type MediaType uint8

// The media types of the Kubernetes API, in Kubernetes' order of
// preference.
const (
	JSON     MediaType = 1 << iota // application/json
	YAML                           // application/yaml
	Protobuf                       // application/vnd.kubernetes.protobuf
)

const allMediaTypes = JSON | YAML | Protobuf

// The media type names.
const (
	ContentTypeJSON           = "application/json"
	ContentTypeYAML           = "application/yaml"
	ContentTypeProtobuf       = "application/vnd.kubernetes.protobuf"
	ContentTypeProtobufStream = "application/vnd.kubernetes.protobuf;stream=watch"
)

// String returns the media type's name, e.g. "application/json". It is
// meant for a single media type, not a set.
func (m MediaType) String() string {
	switch m {
	case JSON:
		return ContentTypeJSON
	case YAML:
		return ContentTypeYAML
	case Protobuf:
		return ContentTypeProtobuf
	}
	return "MediaType(" + strconv.Itoa(int(m)) + ")"
}

// serializer index: the order in which Kubernetes tries its serializers.
const (
	serJSON = iota
	serYAML
	serProtobuf
	numSerializers
)

// Target is the conversion a client asked for with the Accept parameters
// as, g and v: the object is sent as a Table or as PartialObjectMetadata
// instead of as itself.
type Target uint8

// The conversion targets Kubernetes offers, all in group meta.k8s.io.
const (
	// TargetNone is the object as itself.
	TargetNone Target = iota
	TargetTable
	TargetTableV1beta1
	TargetPartialObjectMetadata
	TargetPartialObjectMetadataV1beta1
	TargetPartialObjectMetadataList
	TargetPartialObjectMetadataListV1beta1
	numTargets
)

// Kind returns the kind of the target: "Table", "PartialObjectMetadata",
// "PartialObjectMetadataList", or "" for TargetNone.
func (t Target) Kind() string {
	switch t {
	case TargetTable, TargetTableV1beta1:
		return "Table"
	case TargetPartialObjectMetadata, TargetPartialObjectMetadataV1beta1:
		return "PartialObjectMetadata"
	case TargetPartialObjectMetadataList, TargetPartialObjectMetadataListV1beta1:
		return "PartialObjectMetadataList"
	}
	return ""
}

// APIVersion returns "meta.k8s.io/v1" or "meta.k8s.io/v1beta1", or "" for
// TargetNone.
func (t Target) APIVersion() string {
	switch t {
	case TargetNone:
		return ""
	case TargetTableV1beta1, TargetPartialObjectMetadataV1beta1, TargetPartialObjectMetadataListV1beta1:
		return "meta.k8s.io/v1beta1"
	}
	return "meta.k8s.io/v1"
}

// IsTable reports whether t is a Table of either version.
func (t Target) IsTable() bool { return t == TargetTable || t == TargetTableV1beta1 }

func (t Target) String() string {
	if t == TargetNone {
		return "None"
	}
	if t >= numTargets {
		return "Target(" + strconv.Itoa(int(t)) + ")"
	}
	return t.Kind() + " " + t.APIVersion()
}

// targetFor maps the as/g/v parameters of a media range to a target.
// Kubernetes allows only group meta.k8s.io, versions v1 and v1beta1.
func targetFor(as, g, v string) (Target, bool) {
	if g != "meta.k8s.io" {
		return 0, false
	}
	var beta bool
	switch v {
	case "v1":
	case "v1beta1":
		beta = true
	default:
		return 0, false
	}
	var t Target
	switch as {
	case "Table":
		t = TargetTable
	case "PartialObjectMetadata":
		t = TargetPartialObjectMetadata
	case "PartialObjectMetadataList":
		t = TargetPartialObjectMetadataList
	default:
		return 0, false
	}
	if beta {
		t++
	}
	return t, true
}

// Response is the shape of what an endpoint answers with.
type Response uint8

const (
	// Object is a single object (get, create, update, delete).
	Object Response = iota
	// List is a collection (list, deletecollection).
	List
	// Watch is a stream of watch events.
	Watch
)

// DefaultMaxBodyBytes is the request body limit of an Endpoint that sets
// none: 3 MiB, as a Kubernetes API server.
const DefaultMaxBodyBytes = 3 << 20

// Endpoint describes what one endpoint serves and accepts. The zero value
// serves single objects as JSON, YAML and protobuf, with the Table and
// PartialObjectMetadata conversions, and accepts bodies up to 3 MiB.
type Endpoint struct {
	// MediaTypes is the set of serializations the endpoint's type has,
	// e.g. JSON|YAML for a type without a protobuf form. Zero means
	// JSON|YAML|Protobuf.
	MediaTypes MediaType

	// Response is the shape of the answer. It decides which conversions
	// fit (PartialObjectMetadataList only for lists) and, for Watch, that
	// only streamable media types (JSON, protobuf) are offered.
	Response Response

	// NoTable removes the Table conversion, for a type that cannot be
	// printed (Kubernetes: no TableConvertor).
	NoTable bool

	// NoPartialMetadata removes the PartialObjectMetadata conversions,
	// for a type without object metadata.
	NoPartialMetadata bool

	// MaxBodyBytes limits request bodies; zero means DefaultMaxBodyBytes
	// and a negative value means no limit.
	MaxBodyBytes int64
}

func (e Endpoint) mediaTypes() MediaType {
	if m := e.MediaTypes & allMediaTypes; m != 0 {
		return m
	}
	return allMediaTypes
}

// offer is a (target, serializer) pair, numbered target*3+serializer so
// that the lowest set bit of a set of offers sharing a target is the first
// serializer in Kubernetes' order.
func offerBit(t Target, ser int) uint32 { return 1 << (uint(t)*numSerializers + uint(ser)) }

// serializerBits is the offer set of a media type set for target none.
func serializerBits(m MediaType) uint32 { return uint32(m & allMediaTypes) }

// offers returns the set of offers e makes.
func (e Endpoint) offers() uint32 {
	ser := serializerBits(e.mediaTypes())
	if e.Response == Watch {
		ser &^= 1 << serYAML // YAML has no stream form
	}
	set := ser
	if !e.NoTable {
		tab := ser &^ (1 << serProtobuf) // Table has no protobuf form
		set |= tab<<(numSerializers*uint(TargetTable)) | tab<<(numSerializers*uint(TargetTableV1beta1))
	}
	if !e.NoPartialMetadata {
		t := TargetPartialObjectMetadata
		if e.Response == List {
			t = TargetPartialObjectMetadataList
		}
		set |= ser<<(numSerializers*uint(t)) | ser<<(numSerializers*uint(t+1))
	}
	return set
}

// Result is the outcome of a negotiation: how to write the response.
type Result struct {
	// MediaType is the serialization to use.
	MediaType MediaType
	// Target is the conversion to apply before encoding.
	Target Target
	// Pretty asks for indented JSON; only ever set with MediaType JSON
	// outside watch streams.
	Pretty bool
	// Stream is set for watch responses.
	Stream bool
}

// ContentType returns the Content-Type of the response: the bare media
// type, even for conversions (as Kubernetes), and for a protobuf watch
// stream "application/vnd.kubernetes.protobuf;stream=watch". A JSON watch
// stream is plain "application/json".
func (r Result) ContentType() string {
	if r.MediaType == Protobuf && r.Stream {
		return ContentTypeProtobufStream
	}
	return r.MediaType.String()
}

// Negotiate chooses the representation of the response to r: its Accept
// header lines, then the pretty rules (an Accept pretty=1 parameter, the
// query parameter pretty=true, or a User-Agent of curl, Wget or a
// browser). It fails with a 406 NotAcceptable *status.Error listing what e
// serves; when Accept entries were malformed the error also matches
// ErrMalformedAccept.
func (e Endpoint) Negotiate(r *http.Request) (Result, error) {
	res, err := e.negotiate(r.Header["Accept"])
	if err == nil && res.MediaType == JSON && !res.Stream && !res.Pretty {
		res.Pretty = prettyRequest(r)
	}
	return res, err
}

// NegotiateAccept chooses the representation for one Accept header value;
// "" means no header. It is Negotiate without the request's query and
// User-Agent.
func (e Endpoint) NegotiateAccept(accept string) (Result, error) {
	if accept == "" {
		return e.negotiate(nil)
	}
	return e.negotiate([]string{accept})
}

func (e Endpoint) negotiate(headers []string) (Result, error) {
	var n negotiator
	n.init(e)
	for _, h := range headers {
		n.add(h)
	}
	res, err := n.result()
	if err != nil && e.Response == Watch {
		// Kubernetes negotiates a watch as a list first, and names the
		// stream forms only when that found a media type without one
		// (YAML): Accept text/html lists the plain media types.
		l := e
		l.Response = List
		if _, lerr := l.negotiate(headers); lerr != nil {
			return Result{}, lerr
		}
	}
	return res, err
}

// clause is what negotiation keeps of an Accept entry.
type clause struct {
	offers uint32 // the offers it accepts
	q      uint16
	spec   int8 // 0 */*, 1 type/*, 2 type/subtype
	pretty bool
}

// negotiator chooses among an endpoint's offers. Its selection rule is
// Kubernetes': the entry with the highest q, then the most specific, then
// the first in the header wins, and among the offers it accepts the first
// in server order (JSON, YAML, protobuf). Unlike Kubernetes, an entry
// with q=0 excludes what it matches (RFC 9110), unless a more specific
// entry accepts it.
type negotiator struct {
	ep       Endpoint
	avail    uint32
	p        acceptParser
	n        int
	anyZero  bool
	nonEmpty bool
	clauses  [MaxAcceptEntries]clause
}

func (n *negotiator) init(e Endpoint) {
	n.ep = e
	n.avail = e.offers()
}

func (n *negotiator) add(header string) {
	var r acceptRange
	for s := header; ; {
		var found bool
		if s, found = n.p.next(s, &r); !found {
			return
		}
		n.addRange(&r)
	}
}

func (n *negotiator) addRange(r *acceptRange) {
	n.nonEmpty = true
	c := clause{q: uint16(r.q), pretty: r.pretty, offers: n.rangeOffers(r)}
	switch {
	case r.typ == "*":
		c.spec = 0
	case r.sub == "*":
		c.spec = 1
	default:
		c.spec = 2
	}
	if c.q == 0 {
		n.anyZero = true
	}
	n.clauses[n.n] = c
	n.n++
}

// rangeOffers returns the offers of the endpoint a media range accepts.
func (n *negotiator) rangeOffers(r *acceptRange) uint32 {
	var ser uint32
	switch {
	case r.typ == "*":
		ser = 1<<serJSON | 1<<serYAML | 1<<serProtobuf
	case !equalLower(r.typ, "application"):
		return 0
	case r.sub == "*":
		ser = 1<<serJSON | 1<<serYAML | 1<<serProtobuf
	case equalLower(r.sub, "json"):
		ser = 1 << serJSON
	case equalLower(r.sub, "yaml"):
		ser = 1 << serYAML
	case equalLower(r.sub, "vnd.kubernetes.protobuf"):
		ser = 1 << serProtobuf
	default:
		return 0
	}
	if r.hasSV {
		// A server-version request never matches (Kubernetes' default
		// endpoint restrictions).
		return 0
	}
	if r.hasStream {
		if r.stream != "watch" {
			return 0
		}
		ser &^= 1 << serYAML
	}
	t := TargetNone
	if r.hasConvert {
		var ok bool
		if t, ok = targetFor(r.as, r.g, r.v); !ok {
			return 0
		}
	}
	return ser << (uint(t) * numSerializers) & n.avail
}

func (n *negotiator) result() (Result, error) {
	if !n.nonEmpty {
		// No Accept header: the first serializer the endpoint serves. A
		// header of nothing but malformed entries is not acceptable, as
		// in Kubernetes.
		plain := n.avail & (1<<numSerializers - 1)
		if plain == 0 || n.p.malformed {
			return Result{}, n.notAcceptable()
		}
		return n.resultFor(bits.TrailingZeros32(plain), false), nil
	}
	var vetoed uint32
	if n.anyZero {
		vetoed = n.vetoed()
	}
	best := -1
	for i := 0; i < n.n; i++ {
		c := &n.clauses[i]
		if c.q == 0 || c.offers&^vetoed == 0 {
			continue
		}
		if best < 0 || c.q > n.clauses[best].q || c.q == n.clauses[best].q && c.spec > n.clauses[best].spec {
			best = i
		}
	}
	if best < 0 {
		return Result{}, n.notAcceptable()
	}
	c := &n.clauses[best]
	return n.resultFor(bits.TrailingZeros32(c.offers&^vetoed), c.pretty), nil
}

// vetoed returns the offers excluded by q=0 entries: those an entry with
// q=0 matches at least as specifically as any entry with q>0 does.
func (n *negotiator) vetoed() uint32 {
	const numOffers = int(numTargets) * numSerializers
	var zero, pos [numOffers]int8
	for i := range zero {
		zero[i], pos[i] = -1, -1
	}
	for i := 0; i < n.n; i++ {
		c := &n.clauses[i]
		spec := &pos
		if c.q == 0 {
			spec = &zero
		}
		for m := c.offers; m != 0; m &= m - 1 {
			b := bits.TrailingZeros32(m)
			spec[b] = max(spec[b], c.spec)
		}
	}
	var v uint32
	for b := 0; b < numOffers; b++ {
		if zero[b] >= 0 && zero[b] >= pos[b] {
			v |= 1 << b
		}
	}
	return v
}

func (n *negotiator) resultFor(offer int, pretty bool) Result {
	res := Result{
		MediaType: MediaType(1 << (offer % numSerializers)),
		Target:    Target(offer / numSerializers),
		Stream:    n.ep.Response == Watch,
	}
	res.Pretty = pretty && res.MediaType == JSON && !res.Stream
	return res
}

func (n *negotiator) notAcceptable() error {
	err := notAcceptable(n.ep)
	if perr := n.p.err(); perr != nil {
		return err.Wrap(perr)
	}
	return err
}

// notAcceptable returns Kubernetes' 406 for e: the media types of
// Kubernetes' serializers, or for a watch the stream forms. They are the
// same for every endpoint, whatever it serves: kube-apiserver 1.37 lists
// protobuf in the 406 and 415 of custom resources, which have none.
func notAcceptable(e Endpoint) *status.Error {
	if e.Response == Watch {
		return status.NewNotAcceptableMediaTypes("application/json;stream=watch", ContentTypeProtobufStream)
	}
	return status.NewNotAcceptableMediaTypes(ContentTypeJSON, ContentTypeYAML, ContentTypeProtobuf)
}

// prettyRequest applies Kubernetes' pretty rules that are not part of
// Accept (isPrettyPrint in k8s.io/apiserver's negotiation): a non-empty
// first ?pretty= value decides, true as strconv.ParseBool reads it, so
// that ?pretty=false turns off what the User-Agent of curl, Wget and
// browsers turns on.
func prettyRequest(r *http.Request) bool {
	if r.URL != nil {
		if v := queryValue(r.URL.RawQuery, "pretty"); v != "" {
			b, _ := strconv.ParseBool(v)
			return b
		}
	}
	// The server stores header keys canonically; indexing the map skips
	// Header.Get's canonicalization on this hot path.
	ua := r.Header["User-Agent"]
	if len(ua) == 0 {
		return false
	}
	return strings.HasPrefix(ua[0], "curl") || strings.HasPrefix(ua[0], "Wget") || strings.HasPrefix(ua[0], "Mozilla/5.0")
}

// queryValue is the first value of key in a raw query, as url.Values.Get
// finds it (pairs that url.ParseQuery refuses are skipped), without
// building url.Values.
func queryValue(raw, key string) string {
	for raw != "" {
		var kv string
		kv, raw, _ = strings.Cut(raw, "&")
		if strings.IndexByte(kv, ';') >= 0 {
			continue // url.ParseQuery refuses semicolons
		}
		k, v, _ := strings.Cut(kv, "=")
		if k != key {
			if !escaped(k) {
				continue
			}
			var err error
			if k, err = url.QueryUnescape(k); err != nil || k != key {
				continue
			}
		}
		if escaped(v) {
			var err error
			if v, err = url.QueryUnescape(v); err != nil {
				continue
			}
		}
		return v
	}
	return ""
}

func escaped(s string) bool {
	return strings.IndexByte(s, '%') >= 0 || strings.IndexByte(s, '+') >= 0
}
