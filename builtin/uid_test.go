package builtin

import (
	"context"
	"maps"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// A Job's generated selector names the Job's own uid, which the strategy
// reads: kube-apiserver gives the uid before the strategy runs, and so
// does the server with the uid Prepare gives. A uid the client sends is
// not kept.
func TestJobSelectorNamesTheJobsUID(t *testing.T) {
	cs, _ := newClient(t, Options{Groups: []string{"batch"}})
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "j", UID: types.UID("11111111-2222-4333-8444-555555555555")},
		Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyNever,
			Containers:    []corev1.Container{{Name: "c", Image: "busybox"}},
		}}},
	}
	got, err := cs.BatchV1().Jobs("default").Create(context.Background(), job, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.UID == "" || got.UID == job.UID {
		t.Errorf("uid %q: want a new one, not the client's", got.UID)
	}
	if v := got.Spec.Selector.MatchLabels["batch.kubernetes.io/controller-uid"]; v != string(got.UID) {
		t.Errorf("selector controller-uid=%q, want the Job's uid %q", v, got.UID)
	}
	for _, key := range []string{"batch.kubernetes.io/controller-uid", "controller-uid"} {
		if v := got.Spec.Template.Labels[key]; v != string(got.UID) {
			t.Errorf("template label %s=%q, want the Job's uid %q", key, v, got.UID)
		}
	}
}

// A Job without labels gets its template's, the generated selector's
// among them, on create and again on an update that removes them all:
// kube-apiserver's storage decodes what it writes with defaulting, after
// the strategy has generated the selector.
func TestJobLabelsFromTheGeneratedSelector(t *testing.T) {
	cs, _ := newClient(t, Options{Groups: []string{"batch"}})
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "j"},
		Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyNever,
			Containers:    []corev1.Container{{Name: "c", Image: "busybox"}},
		}}},
	}
	ctx := context.Background()
	got, err := cs.BatchV1().Jobs("default").Create(ctx, job, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"batch.kubernetes.io/controller-uid": string(got.UID), "controller-uid": string(got.UID),
		"batch.kubernetes.io/job-name": "j", "job-name": "j",
	}
	if !maps.Equal(got.Labels, want) {
		t.Errorf("created Job's labels %v, want %v", got.Labels, want)
	}
	for _, mf := range got.ManagedFields {
		if strings.Contains(string(mf.FieldsV1.Raw), "f:labels") {
			t.Errorf("managed fields of %s own the defaulted labels: %s", mf.Manager, mf.FieldsV1.Raw)
		}
	}
	got.Labels = nil
	got, err = cs.BatchV1().Jobs("default").Update(ctx, got, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(got.Labels, want) {
		t.Errorf("updated Job's labels %v, want %v", got.Labels, want)
	}
	list, err := cs.BatchV1().Jobs("default").List(ctx, metav1.ListOptions{LabelSelector: "job-name=j"})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 1 {
		t.Errorf("jobs labelled job-name=j: %d, want 1", len(list.Items))
	}
}
