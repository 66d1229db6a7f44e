package kubedelegate_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
	authenticationv1client "k8s.io/client-go/kubernetes/typed/authentication/v1"
	authorizationv1client "k8s.io/client-go/kubernetes/typed/authorization/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
)

// host is a fake host cluster: the TokenReview, SubjectAccessReview and
// ConfigMap endpoints of a kube-apiserver, answering with the test's
// functions and counting calls.
type host struct {
	mu     sync.Mutex
	tokens func(authenticationv1.TokenReviewSpec) (authenticationv1.TokenReviewStatus, int)
	access func(authorizationv1.SubjectAccessReviewSpec) (authorizationv1.SubjectAccessReviewStatus, int)
	config map[string]string
	calls  map[string]int
	specs  []authorizationv1.SubjectAccessReviewSpec
	// hang, if set, makes reviews wait for the request's end; the
	// channel is closed when one has.
	hang    bool
	gaveUp  chan struct{}
	closeMu sync.Once
	url     string
}

func newHost(t *testing.T) *host {
	h := &host{calls: map[string]int{}, gaveUp: make(chan struct{})}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	h.url = ts.URL
	return h
}

func (h *host) count(path string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.calls[path]
}

func (h *host) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	h.calls[r.URL.Path]++
	hang := h.hang
	h.mu.Unlock()
	if hang {
		// net/http notices a client hanging up only once the body is read.
		io.Copy(io.Discard, r.Body)
		<-r.Context().Done()
		h.closeMu.Do(func() { close(h.gaveUp) })
		return
	}
	write := func(code int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		if code >= 300 {
			json.NewEncoder(w).Encode(metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
				Status: "Failure", Code: int32(code), Reason: metav1.StatusReasonInternalError, Message: "etcdserver: request timed out"})
			return
		}
		json.NewEncoder(w).Encode(v) // client-go reads JSON whatever it sent
	}
	switch r.URL.Path {
	case "/apis/authentication.k8s.io/v1/tokenreviews":
		var tr authenticationv1.TokenReview
		decode(r, &tr)
		st, code := h.tokens(tr.Spec)
		tr.Status = st
		write(code, &tr)
	case "/apis/authorization.k8s.io/v1/subjectaccessreviews":
		var sar authorizationv1.SubjectAccessReview
		decode(r, &sar)
		h.mu.Lock()
		h.specs = append(h.specs, sar.Spec)
		h.mu.Unlock()
		st, code := h.access(sar.Spec)
		sar.Status = st
		write(code, &sar)
	case "/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication":
		write(200, &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{Kind: "ConfigMap", APIVersion: "v1"},
			ObjectMeta: metav1.ObjectMeta{Name: "extension-apiserver-authentication", Namespace: "kube-system"}, Data: h.config})
	default:
		http.NotFound(w, r)
	}
}

// decode reads a request body in JSON or, as client-go sends built-in
// types, protobuf.
func decode(r *http.Request, into runtime.Object) {
	b, _ := io.ReadAll(r.Body)
	if _, _, err := scheme.Codecs.UniversalDeserializer().Decode(b, nil, into); err != nil {
		panic(err)
	}
}

func (h *host) restConfig() *rest.Config { return &rest.Config{Host: h.url} }

func (h *host) authentication(t *testing.T) *authenticationv1client.AuthenticationV1Client {
	c, err := authenticationv1client.NewForConfig(h.restConfig())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func (h *host) authorization(t *testing.T) *authorizationv1client.AuthorizationV1Client {
	c, err := authorizationv1client.NewForConfig(h.restConfig())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func (h *host) core(t *testing.T) *corev1client.CoreV1Client {
	c, err := corev1client.NewForConfig(h.restConfig())
	if err != nil {
		t.Fatal(err)
	}
	return c
}
