package idp_test

import (
	"fmt"

	"github.com/tablekit/tablekit/entity/idp"
)

// The generated builders give the seed's exact key strings; a segment
// index is zero-padded so that segments list in numeric order.
func ExampleArtifactGSI2PK() {
	pk, _ := idp.ArtifactGSI2PK("u1", "p1")
	fmt.Println(pk)
	seg, _ := idp.SegmentKey("w1", 10)
	fmt.Println(seg.PK, seg.SK)
	_, err := idp.ProjectKey("")
	fmt.Println(err != nil)
	// Output:
	// USR#u1#PROJ#p1#ART
	// WF#w1 SEG#000010
	// true
}
