package conformance

// Aside runs judge, the judgement of a further case of the check (the
// target forked onto another fixture profile, say), after the main one. A
// skip, block or not-applicable raised outside any clause inside it ends
// that case only, recorded under what, never the whole check: the main
// case's verdicts stand.
func (t *T) Aside(what string, judge func()) {
	defer func() {
		switch sig := recover().(type) {
		case nil:
		case skipSignal:
			t.Record(what, "not judged: "+sig.reason)
		case blockSignal:
			t.Record(what, "not judged: blocked by "+sig.by+": "+sig.reason)
		case naSignal:
			t.Record(what, "not applicable: "+sig.reason)
		default:
			panic(sig)
		}
	}()
	judge()
}
