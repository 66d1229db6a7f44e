package builtin

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"strings"
	"testing"
)

// csrRequest returns a PEM certificate request, base64-encoded as a
// CertificateSigningRequest's spec.request is in JSON.
func csrRequest(t *testing.T) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{Subject: pkix.Name{CommonName: "alice"}}, key)
	if err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der}))
}

// certificatesigningrequests/approval updates status.conditions alone,
// with Kubernetes' approval strategy; the answers are those recorded on
// v1.37.1 (testdata/reference-v1.37.1-multiver.txt).
func TestCSRApproval(t *testing.T) {
	_, url := newClient(t, Options{Groups: []string{"certificates.k8s.io"}})
	u := url + "/apis/certificates.k8s.io/v1/certificatesigningrequests"
	req := csrRequest(t)
	for _, name := range []string{"c1", "c2"} {
		if code, body := do(t, "POST", u, `{"metadata":{"name":"`+name+`"},"spec":{"request":"`+req+
			`","signerName":"example.com/s","usages":["client auth"]}}`); code != 201 {
			t.Fatalf("create %s: %d %s", name, code, body)
		}
	}
	type csr struct {
		Kind     string
		Metadata struct {
			Labels          map[string]string
			ResourceVersion string
		}
		Spec   struct{ Usages []string }
		Status struct {
			Certificate string
			Conditions  []struct {
				Type, Status, Reason, Message, LastUpdateTime, LastTransitionTime string
			}
		}
	}
	message := func(body string) string {
		var st struct{ Message string }
		_ = json.Unmarshal([]byte(body), &st)
		return st.Message
	}
	parse := func(body string) csr {
		var c csr
		if err := json.Unmarshal([]byte(body), &c); err != nil {
			t.Fatalf("%v: %s", err, body)
		}
		return c
	}

	// GET answers the object.
	if code, body := do(t, "GET", u+"/c1/approval", ""); code != 200 || parse(body).Kind != "CertificateSigningRequest" {
		t.Errorf("GET approval: %d %s", code, body)
	}
	// PUT takes the conditions (with their times) and metadata, not the
	// spec or status.certificate.
	_, body := do(t, "GET", u+"/c1", "")
	var obj map[string]any
	if err := json.Unmarshal([]byte(body), &obj); err != nil {
		t.Fatal(err)
	}
	obj["metadata"].(map[string]any)["labels"] = map[string]any{"x": "y"}
	obj["spec"].(map[string]any)["usages"] = []any{"server auth"}
	obj["status"] = map[string]any{"certificate": "YWJj",
		"conditions": []any{map[string]any{"type": "Approved", "status": "True", "reason": "R", "message": "m"}}}
	b, _ := json.Marshal(obj)
	code, body := do(t, "PUT", u+"/c1/approval", string(b))
	got := parse(body)
	if code != 200 || got.Metadata.Labels["x"] != "y" || strings.Join(got.Spec.Usages, ",") != "client auth" || got.Status.Certificate != "" ||
		len(got.Status.Conditions) != 1 || got.Status.Conditions[0].Type != "Approved" || got.Status.Conditions[0].Reason != "R" ||
		got.Status.Conditions[0].LastUpdateTime == "" || got.Status.Conditions[0].LastTransitionTime == "" {
		t.Errorf("PUT approval: %d %s", code, body)
	}

	// Approved and Denied together: the 422 of the approval's validation.
	_, body = do(t, "GET", u+"/c1", "")
	body = strings.Replace(body, `"conditions":[`, `"conditions":[{"type":"Denied","status":"True","reason":"R","message":"m"},`, 1)
	if code, body := do(t, "PUT", u+"/c1/approval", body); code != 422 || message(body) !=
		"CertificateSigningRequest.certificates.k8s.io \"c1\" is invalid: status.conditions: Invalid value: "+
			"\"{conditions[{\\\"type\\\": \\\"Approved\\\"}], conditions[{\\\"type\\\": \\\"Denied\\\"}]}\": "+
			"must specify at most one of: `conditions[{\"type\": \"Approved\"}]`, `conditions[{\"type\": \"Denied\"}]`" {
		t.Errorf("PUT approval, Approved and Denied: %d %s", code, body)
	}

	// The status subresource may not approve; the object's update keeps
	// the status.
	_, body = do(t, "GET", u+"/c2", "")
	approved := strings.Replace(body, `"status":{}`, `"status":{"conditions":[{"type":"Approved","status":"True","reason":"R","message":"m"}]}`, 1)
	if code, body := do(t, "PUT", u+"/c2/status", approved); code != 422 || message(body) !=
		`CertificateSigningRequest.certificates.k8s.io "c2" is invalid: status.conditions: Forbidden: updates may not add a condition of type "Approved"` {
		t.Errorf("PUT status, Approved: %d %s", code, body)
	}
	if code, body := do(t, "PUT", u+"/c2", approved); code != 200 || len(parse(body).Status.Conditions) != 0 {
		t.Errorf("PUT, Approved: %d %s", code, body)
	}

	// A merge patch denies; a denial is not taken back.
	if code, body := doPatch(t, u+"/c2/approval", `{"status":{"conditions":[{"type":"Denied","status":"True","reason":"No","message":"no"}]}}`); code != 200 ||
		len(parse(body).Status.Conditions) != 1 || parse(body).Status.Conditions[0].Type != "Denied" {
		t.Errorf("PATCH approval, Denied: %d %s", code, body)
	}
	if code, body := doPatch(t, u+"/c2/approval", `{"status":{"conditions":[{"type":"Approved","status":"True","reason":"No","message":"no"}]}}`); code != 422 ||
		message(body) != `CertificateSigningRequest.certificates.k8s.io "c2" is invalid: status.conditions: Forbidden: updates may not remove a condition of type "Denied"` {
		t.Errorf("PATCH approval, Approved after Denied: %d %s", code, body)
	}
	if code, body := doPatch(t, u+"/nope/approval", `{}`); code != 404 ||
		message(body) != `certificatesigningrequests.certificates.k8s.io "nope" not found` {
		t.Errorf("PATCH approval of a missing CSR: %d %s", code, body)
	}
	for _, method := range []string{"POST", "DELETE"} {
		if code, body := do(t, method, u+"/c2/approval", "{}"); code != 405 {
			t.Errorf("%s approval: %d %s", method, code, body)
		}
	}
}

// doPatch sends a JSON merge patch.
func doPatch(t *testing.T, url, patch string) (int, string) {
	t.Helper()
	req, err := http.NewRequest("PATCH", url, strings.NewReader(patch))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/merge-patch+json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}
