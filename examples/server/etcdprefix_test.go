package main

import (
	"context"
	"strings"
	"testing"
	"time"
)

// A server on etcd below another prefix (-etcd-prefix, kube-apiserver's
// --etcd-prefix) names its keys in a failed precondition's 409 (here a
// pods/binding naming another uid), as the reference started with
// --etcd-prefix=/custom names /custom/deployments/default/d
// (store/testdata/reference-v1.37.1-precondition-etcd-prefix.json);
// and a namespace's deletion frees its Services' cluster IPs and node
// ports at once, as kube-apiserver's namespace controller deletes them
// through the API (before, on etcd, they waited for a later allocation
// to find the IPAddress orphaned, 10 s after it was made).
func TestEtcdPrefix(t *testing.T) {
	url, c := startEtcd(t)
	p := mustStart(t, "-etcd-servers", url, "-etcd-prefix", "/custom", "-addr", "127.0.0.1:0", "-etcd-compaction-interval", "0")
	if code, o := p.call(t, "POST", "/api/v1/namespaces", map[string]any{"metadata": map[string]any{"name": "pfx"}}); code != 201 {
		t.Fatalf("namespace: %d %v", code, o)
	}
	pod := map[string]any{"metadata": map[string]any{"name": "p"}, "spec": map[string]any{
		"containers": []any{map[string]any{"name": "c", "image": "i"}}}}
	code, po := p.call(t, "POST", "/api/v1/namespaces/pfx/pods", pod)
	if code != 201 {
		t.Fatalf("pod: %d %v", code, po)
	}
	code, st := p.call(t, "POST", "/api/v1/namespaces/pfx/pods/p/binding",
		map[string]any{"metadata": map[string]any{"name": "p", "uid": "zz"}, "target": map[string]any{"name": "n"}})
	want := `Operation cannot be fulfilled on pods "p": StorageError: invalid object, Code: 4, Key: /custom/pods/pfx/p, ResourceVersion: 0, ` +
		`AdditionalErrorMsg: Precondition failed: UID in precondition: zz, UID in object meta: ` + metadata(po)["uid"].(string)
	if code != 409 || st["message"] != want {
		t.Errorf("binding with another uid: %d %v\nwant 409 %s", code, st["message"], want)
	}
	// The pod goes at once with its namespace: it is on no node.

	svc := map[string]any{"metadata": map[string]any{"name": "s"}, "spec": map[string]any{"type": "NodePort", "clusterIP": "10.96.4.4",
		"ports": []any{map[string]any{"port": 80, "nodePort": 30444}}}}
	if code, o := p.call(t, "POST", "/api/v1/namespaces/pfx/services", svc); code != 201 {
		t.Fatalf("service: %d %v", code, o)
	}
	ctx := context.Background()
	if resp, err := c.Get(ctx, "/custom/ipaddresses/10.96.4.4"); err != nil || len(resp.Kvs) != 1 {
		t.Fatalf("the IPAddress is not in etcd below /custom: %v", err)
	}
	if code, o := p.call(t, "DELETE", "/api/v1/namespaces/pfx", nil); code != 200 {
		t.Fatalf("delete the namespace: %d %v", code, o)
	}
	deadline := time.Now().Add(20 * time.Second) // a guard for a broken server, not a timing
	for {
		code, _ := p.call(t, "GET", "/api/v1/namespaces/pfx", nil)
		if code == 404 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the namespace is still there")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if code, o := p.call(t, "GET", "/apis/networking.k8s.io/v1/ipaddresses/10.96.4.4", nil); code != 404 {
		t.Errorf("the IPAddress after the namespace's deletion: %d %v", code, o)
	}
	if code, o := p.call(t, "POST", "/api/v1/namespaces", map[string]any{"metadata": map[string]any{"name": "pfx"}}); code != 201 {
		t.Fatalf("namespace again: %d %v", code, o)
	}
	if code, o := p.call(t, "POST", "/api/v1/namespaces/pfx/services", svc); code != 201 {
		msg, _ := o["message"].(string)
		t.Errorf("a Service naming the freed values: %d %s", code, strings.TrimSpace(msg))
	}
}
