package ddbmem

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
)

// TestServeClientSocket checks that Server.Client and Server.StreamsClient
// reach their server on its Unix socket, that a client of the URL reaches
// it on TCP, and that Close removes the socket.
func TestServeClientSocket(t *testing.T) {
	ctx := context.Background()
	s, err := Serve(New(), "")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.socket == "" {
		t.Fatal("the server has no Unix socket")
	}
	networks := func() map[string]int {
		s.mu.Lock()
		defer s.mu.Unlock()
		n := map[string]int{}
		for c := range s.conns {
			n[c.LocalAddr().Network()]++
		}
		return n
	}
	if _, err := s.Client().ListTables(ctx, &dynamodb.ListTablesInput{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.StreamsClient().ListStreams(ctx, &dynamodbstreams.ListStreamsInput{}); err != nil {
		t.Fatal(err)
	}
	if got := networks(); got["unix"] != 2 || got["tcp"] != 0 {
		t.Fatalf("connections by network after Client and StreamsClient = %v, want 2 unix", got)
	}
	if _, err := NewEndpointClient(s.URL()).ListTables(ctx, &dynamodb.ListTablesInput{}); err != nil {
		t.Fatal(err)
	}
	if got := networks(); got["unix"] != 2 || got["tcp"] != 1 {
		t.Fatalf("connections by network after a client of the URL = %v, want 2 unix and 1 tcp", got)
	}
	c := s.Client()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if conn, err := net.Dial("unix", s.socket); err == nil {
		conn.Close()
		t.Fatal("the socket accepts connections after Close")
	}
	if s.socket[0] != '@' {
		if _, err := os.Stat(filepath.Dir(s.socket)); !os.IsNotExist(err) {
			t.Fatalf("the socket's directory is left after Close: %v", err)
		}
	}
	if _, err := c.ListTables(ctx, &dynamodb.ListTablesInput{}); err == nil {
		t.Fatal("Client works after Close")
	}
	// A server started again on the same address answers the old
	// client, on TCP, as it would have without the socket.
	s2, err := Serve(New(), s.ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if _, err := c.ListTables(ctx, &dynamodb.ListTablesInput{}); err != nil {
		t.Fatalf("the old client against a new server on its address: %v", err)
	}
}
