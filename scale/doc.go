// Package scale is autoscaling/v1 Scale, the view of an object's replicas
// that a scale subresource serves (kubectl scale and the
// HorizontalPodAutoscaler use it), with its JSON and protobuf forms, as
// k8s.io/api/autoscaling/v1 has it apart from the apiserver.
//
// Package server serves the view (server.ScaleSubresource says where an
// object keeps its replicas); clients and tests decode its answers into
// Scale.
package scale
