package builtin

import (
	"encoding/json"
	"net/http"
	"slices"
	"testing"

	certificatesv1 "k8s.io/api/certificates/v1"

	"github.com/apisem/apisem/auth"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/server/servertest"
)

// aliceCSR is a PKCS#10 request of CN=alice (P-256), base64.
const aliceCSR = "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0KTUlITE1ISUNBUUF3RURFT01Bd0dBMVVFQXd3RllXeHBZMlV3V1RBVEJnY3Foa2pPUFFJQkJnZ3Foa2pPUFFNQgpCd05DQUFUNmV2c0NMcGdRenJ6UXZIN1JOZ2w0bG9TRG5Odmp0ZXhJMjZPc1RiZFhodDEwb0cvOGUzRVhQSlJXCjgzb1cvRitNZjlzdGFBWkVDQ2hQZWRHbHd6M21vQUF3Q2dZSUtvWkl6ajBFQXdJRFNRQXdSZ0loQU1Ua3kwZXUKSVNjNm15WG90WEc1a1JueTlDM1M3citCdVBhNFNwcURvNzY5QWlFQTFWTm55bzJxOUlnUEdHRG93V3F3RDJRRgpaMkdpdS9sdFM1RmFaUjBiYkxrPQotLS0tLUVORCBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0K"

// The strategies see the writer: a CertificateSigningRequest records
// who asked, as the reference cluster records its admin's name, uid and
// groups.
func TestStrategiesSeeTheUser(t *testing.T) {
	res, err := Resources(Options{Groups: []string{"certificates.k8s.io"}})
	if err != nil {
		t.Fatal(err)
	}
	alice := auth.User{Name: "alice", UID: "u-1", Groups: []string{"team", auth.AllAuthenticated}}
	var opts server.Options
	opts.Resources = res
	opts.Security.Authenticator = auth.AuthenticatorFunc(func(*http.Request) (auth.User, bool, error) { return alice, true, nil })
	_, url := servertest.New(t, opts)
	r := servertest.Do(t, "POST", url+"/apis/certificates.k8s.io/v1/certificatesigningrequests",
		`{"metadata":{"name":"alice"},"spec":{"request":"`+aliceCSR+`","signerName":"example.com/signer","usages":["client auth"]}}`,
		"Content-Type", "application/json")
	if r.Code != 201 {
		t.Fatalf("%d %s", r.Code, r.Body)
	}
	var csr certificatesv1.CertificateSigningRequest
	if err := json.Unmarshal([]byte(r.Body), &csr); err != nil {
		t.Fatal(err)
	}
	if s := csr.Spec; s.Username != alice.Name || s.UID != alice.UID || !slices.Equal(s.Groups, alice.Groups) {
		t.Errorf("spec.username %q, uid %q, groups %q; want alice's", s.Username, s.UID, s.Groups)
	}
}
