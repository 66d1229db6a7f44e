// Package table describes the columns of a resource's Table, the form
// kubectl get asks for (Accept: application/json;as=Table): each Column's
// definition and how its cell is computed from an object, with the Name
// and Age columns most resources share and Age, kubectl's way of printing
// how old something is. As Kubernetes' printers, it reads objects only
// through meta.Object and what a cell function asserts them to be.
//
// Package server turns a resource's columns (server.Resource.Columns)
// into Tables; package negotiation writes them.
package table
