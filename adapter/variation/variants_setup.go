package variation

import (
	"strings"

	"github.com/pdpp-connect/mcpcheck/adapter"
)

// Conforming variations of the help and setup copy.

const profileFreeSentence = "One profile-free endpoint: the same read tools over stdio and HTTP, with no profiles or toolsets to choose."

// profileFreeProse describes the profile-free design in words, in --help
// and in /llms.txt. The setup page is left alone: seed 003 says that page
// "intentionally avoids … profile vocabulary".
func profileFreeProse(s *Seams) {
	s.Command.Help = strings.Replace(adapter.HelpText, "\nFlags:\n", "\n"+profileFreeSentence+"\n\nFlags:\n", 1)
	onPage(adapter.LLMsPath, func(txt string) string {
		const at = "One endpoint, one set of read tools.\n"
		return strings.Replace(txt, at, at+profileFreeSentence+"\n", 1)
	})(s)
}
