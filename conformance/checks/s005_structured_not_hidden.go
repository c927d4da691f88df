package checks

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
)

var (
	hiddenClaimRe = regexp.MustCompile(`(?i)structured\s?content(?:[^.]|\.\w){0,80}\b(hidden|invisible|not (visible|shown|seen)|never (seen|shown|visible)|(the )?model (cannot|can't|does not|doesn't|won't|will not) see|` +
		`(stays?|kept|keeps|is|remains?|sits?) (out of|outside|away from)( the)? (model|context|conversation|prompt|llm)|not (in|part of|sent to|added to)( the)? (model|context|conversation|prompt))\b|` +
		`\b(hidden|invisible)\b[^.]{0,60}structured\s?content`)
	// Steering away from wide reads: page, narrow fields, or use
	// aggregate or search instead. A sentence steers when it names one of
	// these and is advice: it tells the model what to do (an imperative,
	// "prefer", "instead", "should", "when … not needed"), not a sentence
	// that only describes the tool ("returns bounded pages").
	steerRe  = regexp.MustCompile(`(?i)\b(page|pages|paging|paginat\w*|cursor|next_cursor|fields|narrow\w*|project\w*|aggregate|search)\b`)
	adviceRe = regexp.MustCompile(`(?i)^\W*(use|prefer|page|narrow|pass|request|call|try|consider|select|project|choose|ask|follow|limit|filter|keep|read|fetch|run|switch|start)\b|` +
		`\b(prefer\w*|instead|rather than|should|recommended|to (page|narrow|project|select|limit)|(do not|don't|doesn't|does not|not) need\w*|unless|only need\w*|avoid\w*|before reading|when (you|the model|it) (need|want)s?)\b|` +
		`\b(narrow|page|project)\w* (with|by|using|through)\b|\b(use|call|try)\s+(aggregate|search|fields|cursor|next_cursor)\b`)
)

// Seed 000: descriptions "SHALL describe structuredContent as structured
// output, not as hidden output", and "SHALL instruct the model to page,
// narrow fields, or aggregate/search when it does not need full records".
// A description that never names structuredContent claims nothing hidden;
// one of the three steers suffices, on the tool that reads full records.
var s005 = &Check{ID: "S005", Slug: "structured-not-hidden", Mode: ModeBB, Run: func(t *T) {
	for tool, texts := range probe.ToolDescriptions(t.Target) {
		t.Clause(1, func() {
			for _, d := range texts {
				claim := hiddenClaim(d)
				t.AssertWith(claim == "", func() (conformance.Witness, error) {
					return conformance.Present(claim, conformance.Shown("the "+tool+" descriptions", d))
				}, "tool %s claims structured data is hidden from the model: %q", tool, d)
			}
		})
	}
	// Seed 000: the adapter "SHALL treat both content[] and
	// structuredContent as potentially model-visible"; instructions that
	// tell the model otherwise break that as a description would.
	if in := t.Target.Init.Instructions; in != "" {
		t.Clause(1, func() {
			claim := hiddenClaim(in)
			t.AssertWith(claim == "", func() (conformance.Witness, error) {
				return conformance.Present(claim, conformance.Shown("the server instructions", in))
			}, "the server instructions claim result data is kept from the model: %q", claim)
		})
	}
	t.Clause(2, func() {
		for _, tool := range t.Target.Tools {
			if tool.Name == "query_records" {
				d := tool.Description
				t.AssertWith(steersAway(d) != "", func() (conformance.Witness, error) { return noAdvice(d) }, "query_records must tell the model to page, narrow fields, or use aggregate or search when it does not need full records; no sentence of its description advises that (naming paging in a sentence that only describes the tool is not advice): %q", tool.Description)
				return
			}
		}
		t.BlockedBy("S012", "the target serves no query_records, the tool that reads full records")
	})
}}

// A claim that data is kept from the model need not name
// structuredContent: "rows go straight to the client and are never placed
// in the conversation". A sentence claims it when it denies the model sees
// something (denyRe) and names where the data goes instead (deliveredRe:
// structured output, the client or host); one that says the data is
// visible is no claim.
var (
	denyRe = regexp.MustCompile(`(?i)\b(never|not|n't|no longer)\b[^.;:]{0,30}\b(placed|put|shown|sent|added|included|passed|visible|seen|see|reach\w*|enters?|appears?|loaded|read by)\b[^.;:]{0,20}\b(conversation|context( window)?|view|prompt|transcript|chat|model|llm|assistant|you)\b|` +
		`\b(outside|out of|beyond|hidden from|invisible to|away from|kept from|withheld from)\s+(the |your |its |the model's )?(view|context|conversation|prompt|model|sight|llm|assistant|you)\b`)
	deliveredRe = regexp.MustCompile(`(?i)structured|\b(client|host|application|app|ui|widget|renderer|display)\b`)
	// The audience as subject: "the assistant never sees it", "agents
	// cannot read structuredContent", "the model only receives the text";
	// and the audience set against where the data goes: "consumed by the
	// client, not the model".
	audienceDenyRe = regexp.MustCompile(`(?i)\b(model|assistant|agent|llm|ai)s?\b[^.;:]{0,20}\b(never|cannot|can't|can ?not|does not|doesn't|do not|don't|won't|will not)\s+(see|sees|read|reads|receive|receives|get|gets|access)\b|` +
		`\b(model|assistant|agent|llm|ai)s?\b[^.;:]{0,20}\b(only|just)\s+(sees?|reads?|receives?|gets?)\b|` +
		`\b(client|host|application|app|ui|code|program)s?\b[^.;:]{0,20},?\s+not\s+(by |to |for )?(the |your )?(model|assistant|agent|llm|ai|you)\b`)
	// A conditional about a host that hides structuredContent ("if your
	// host does not show it to the model, read the text") claims nothing.
	conditionalRe = regexp.MustCompile(`(?i)^\W*(if|when|where|unless|in case|should|some)\b|\b(if|when|unless|where) (the |your |a |some )?(host|client|model|assistant|agent)s?\b`)
	visibleRe     = regexp.MustCompile(`(?i)\b(not|never|neither|nor|isn't|aren't)( is| are)?( a| an)? (hidden|invisible|private)\b|\bmodel-visible\b|\b(is|are|stays?|remains?|also|potentially) visible\b|\b(may|can|might|could) (be )?(see|seen|read)\b`)
)

// hiddenClaim is the first claim of d, sentence by sentence, that
// structured data is hidden from the model: the structuredContent wording
// (hiddenClaimRe), or a denial that the model sees data delivered
// elsewhere; a sentence that says it is visible claims nothing. "" when
// none.
func hiddenClaim(d string) string {
	for _, sentence := range sentenceSplitRe.Split(d, -1) {
		if visibleRe.MatchString(sentence) {
			continue
		}
		if c := hiddenClaimRe.FindString(sentence); c != "" {
			return c
		}
		if denyRe.MatchString(sentence) && deliveredRe.MatchString(sentence) {
			return strings.TrimSpace(sentence)
		}
	}
	// The audience denial may sit in one clause and where the data goes
	// in the next ("… go to the host; the assistant never sees them").
	for _, sentence := range fullSentenceRe.Split(d, -1) {
		if visibleRe.MatchString(sentence) || conditionalRe.MatchString(sentence) {
			continue
		}
		if audienceDenyRe.MatchString(sentence) && deliveredRe.MatchString(sentence) && resultRe.MatchString(sentence) && !binaryRe.MatchString(sentence) {
			return strings.TrimSpace(sentence)
		}
	}
	return ""
}

// The audience reading is of the result (a binary body kept from the
// model is seed 002's rule, not a hidden-output claim).
var (
	resultRe = regexp.MustCompile(`(?i)structured|\b(results?|pages?|rows?|records?|payload|json|data|output)\b`)
	binaryRe = regexp.MustCompile(`(?i)\b(blobs?|binary|bytes|attachments?|images?|files?)\b`)
)

// fullSentenceRe ends a sentence at . ! ? or a line break, not at ;.
var fullSentenceRe = regexp.MustCompile(`[.!?]\s+|\n+`)

// steerStems and adviceStems are the words steering and advice go by, for
// a witness: a description none of whose sentences holds one of each
// advises nothing of the kind, in any wording.
var (
	steerStems  = strings.Fields("page paginat cursor field narrow project aggregat search limit select") // words, not argument names
	adviceStems = []string{"use", "prefer", "instead", "rather", "should", "recommend", "when", "unless", "only", "avoid", "need", "try",
		"consider", "pass", "request", "call", "first", "before", "page through", "follow"}
)

// noAdvice witnesses that no sentence of d names a steer and an advice
// word together.
func noAdvice(d string) (conformance.Witness, error) {
	for _, sentence := range sentenceSplitRe.Split(d, -1) {
		low := strings.ToLower(sentence)
		if slices.ContainsFunc(steerStems, func(w string) bool { return strings.Contains(low, w) }) &&
			slices.ContainsFunc(adviceStems, func(w string) bool { return strings.Contains(low, w) }) {
			return conformance.Witness{}, fmt.Errorf("the sentence %q may advise it in words mcpcheck does not read", sentence)
		}
	}
	return conformance.Witness{Kind: conformance.WitnessAbsent, Fact: "a sentence naming paging, fields, aggregate or search together with advice (use, prefer, instead, should, when …)",
		In: []string{"the query_records description"}, Excerpt: d}, nil
}

// steersAway is the first sentence of a description that advises paging,
// narrowing fields, or aggregate or search; "" when none does.
func steersAway(desc string) string {
	for _, sentence := range sentenceSplitRe.Split(desc, -1) {
		if steerRe.MatchString(sentence) && adviceRe.MatchString(sentence) {
			return sentence
		}
	}
	return ""
}

// sentenceSplitRe ends a sentence at . ; ! ? or a line break followed by
// space (not the dot inside a name such as structuredContent.data).
var sentenceSplitRe = regexp.MustCompile(`[.;!?]\s+|\n+`)
