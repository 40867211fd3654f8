package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/internal/keygen/sample"
	"github.com/tablekit/tablekit/keys"
)

// The sample package declares, among others,
//
//	//keygen:entity ARTIFACT
//	//keygen:key PK=ART#{ArtifactID} SK=META
//	//keygen:gsi GSI1 GSI1PK=USR#{UserID}#ART GSI1SK={CreatedAt}
//	//keygen:gsi GSI2 GSI2PK=USR#{UserID}#PROJ#{ProjectID}#ART GSI2SK={CreatedAt}
//	type Artifact struct { ... }
//
// and keygen writes the builders, parsers and codec used here.
func Example() {
	k, _ := sample.ArtifactKey("a1")
	fmt.Println(k.PK, k.SK)

	pk, _ := sample.ArtifactGSI2PK("u001", "p001")
	fmt.Println(pk)
	user, project, _ := sample.ParseArtifactGSI2PK(pk)
	fmt.Println(user, project)

	prefix, _ := sample.ArtifactGSI2PKPrefixByUserID("u001")
	fmt.Println(prefix)

	sk, _ := sample.SegmentSK(2)
	fmt.Println(sk)

	a := sample.Artifact{ArtifactID: "a1", UserID: "u001", ProjectID: "p001",
		CreatedAt: time.Date(2025, 11, 14, 3, 0, 0, 0, time.UTC)}
	item, _ := a.MarshalItem()
	fmt.Println(len(item), item["GSI1SK"].(*types.AttributeValueMemberS).Value)

	_, err := sample.ArtifactGSI2PK("", "p001")
	fmt.Println(errors.Is(err, keys.ErrMissingField))
	// Output:
	// ART#a1 META
	// USR#u001#PROJ#p001#ART
	// u001 p001
	// USR#u001#PROJ#
	// SEG#000002
	// 11 2025-11-14T03:00:00.000Z
	// true
}
