package checks

import (
	"reflect"
	"testing"
)

func TestTextStreamRowsReadsNamesAndConnectionsFromText(t *testing.T) {
	text := "PDPP schema: connectors=2 streams=3\n" +
		`stream name="messages" connector_key="slack" connections={connection_id:conn_a,display_name:Work}|{connection_id:conn_b}` + "\n" +
		`stream name="odd \"name\"" connector_key="x"` + "\n" +
		`stream_index connector_key="gmail" stream_count=2 streams=threads|labels` + "\n"
	got := textStreamRows(text)
	want := []textRow{{"messages", []string{"conn_a", "conn_b"}}, {`odd "name"`, nil}, {"threads", nil}, {"labels", nil}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("textStreamRows = %#v, want %#v", got, want)
	}
	if rows := textStreamRows("no stream rows here"); len(rows) != 0 {
		t.Fatalf("want no rows, got %v", rows)
	}
}
