// Package version orders API version names (v1, v1beta2, v1alpha1) by
// Kubernetes' version priority, as k8s.io/apimachinery/pkg/version does:
// discovery lists a group's versions in this order and prefers the first,
// and a CustomResourceDefinition's versions are sorted the same way.
package version
