package crd

import "testing"

// TestDeepCopy checks that a copy round-trips to the same JSON and
// shares no memory that a change could reach.
func TestDeepCopy(t *testing.T) {
	defs, err := Load("testdata/definitions")
	if err != nil || len(defs) != 1 {
		t.Fatalf("Load = %d, %v", len(defs), err)
	}
	d := defs[0]
	d.Status.Conditions = []CustomResourceDefinitionCondition{{Type: Established, Status: "True"}}
	c := d.DeepCopy()
	if a, b := jsonOf(t, d), jsonOf(t, c); a != b {
		t.Fatalf("copy differs:\n%s\n%s", a, b)
	}
	before := jsonOf(t, d)
	s := c.Spec.Versions[0].Schema.OpenAPIV3Schema
	spec := s.Properties["spec"]
	spec.Properties["color"].Enum[0] = "x"
	c.Spec.Versions[0].AdditionalPrinterColumns[0].Name = "x"
	c.Spec.Names.ShortNames[0] = "x"
	c.Status.Conditions[0].Status = "False"
	spec.Required[0] = "x"
	if after := jsonOf(t, d); after != before {
		t.Errorf("changing the copy changed the original:\n%s\n%s", before, after)
	}
}
