package taint

import (
	"slices"
	"testing"
)

// TestFlowThroughExpansions: what a value carries survives every bash form
// that builds a string or a number from it, and a plain reassignment
// clears it. Each row is a script and exactly the variables it reads
// uncovered (NAME<-FROM when the value carries other names).
func TestFlowThroughExpansions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, script string
		want         []string
	}{
		// Strings built from a tainted value carry it.
		{"concatenation", src + "B=\"pre-${SHA}-post\"\necho \"$B\"\n", []string{"B<-SHA", "SHA"}},
		{"two sources of one value", src + "B=\"$X$Y\"\necho \"$B\"\n", []string{"B<-X,Y", "X", "Y"}},
		{"a prefix removed", src + "B=\"${SHA#v}\"\necho \"$B\"\n", []string{"B<-SHA", "SHA"}},
		{"a suffix removed", src + "B=\"${SHA%%.*}\"\necho \"$B\"\n", []string{"B<-SHA", "SHA"}},
		{"a replacement", src + "B=\"${SHA//a/b}\"\necho \"$B\"\n", []string{"B<-SHA", "SHA"}},
		{"the replacement text", src + "B=\"${LIT//a/$R}\"\necho \"$B\"\n", []string{"B<-LIT,R", "LIT", "R"}},
		{"a length", src + "N=${#SHA}\necho \"$N\"\n", []string{"N<-SHA", "SHA"}},
		{"a slice with a tainted offset", src + "V=abcdef\nB=\"${V:$OFF:2}\"\necho \"$B\"\n", []string{"B<-OFF", "OFF"}},
		{"case conversion", src + "B=\"${SHA^^}\"\necho \"$B\"\n", []string{"B<-SHA", "SHA"}},
		{"an alternative value", src + "B=\"${FLAG:+--skip}\"\necho \"$B\"\n", []string{"B<-FLAG", "FLAG"}},
		{"a default's word", src + "V=1\nB=\"${V:-$D}\"\necho \"$B\"\n", []string{"B<-D", "D"}},
		{"an array element", src + "A=(x \"$SHA\")\necho \"${A[1]}\"\n", []string{"A<-SHA", "SHA"}},
		{"an array index", src + "A=(x y)\necho \"${A[$I]}\"\n", []string{"I"}},
		{"an appended element", src + "A=(x)\nA+=(\"$SHA\")\necho \"${A[@]}\"\n", []string{"A<-SHA", "SHA"}},
		{"an element assignment keeps the others", src + "A[0]=x\necho \"${A[1]}\"\n", []string{"A"}},
		{"append to a string", src + "B=x\nB+=\"$SHA\"\necho \"$B\"\n", []string{"B<-SHA", "SHA"}},
		{"append to an uncovered string", src + "B+=x\necho \"$B\"\n", []string{"B"}},
		{"a here-string", src + "read -r B <<< \"$SHA\"\necho \"$B\"\n", []string{"B<-SHA", "SHA"}},
		{"a here-document", src + "cat <<EOF\n$SHA\nEOF\n", []string{"SHA"}},
		{"a quoted here-document expands nothing", src + "cat <<'EOF'\n$SHA\nEOF\n", nil},
		{"single quotes expand nothing", src + "echo '$SHA'\n", nil},
		{"printf -v", src + "printf -v B '%s' \"$SHA\"\necho \"$B\"\n", []string{"B<-SHA", "SHA"}},
		{"printf -v of a literal", src + "printf -v B '%s' lit\necho \"$B\"\n", nil},
		{"a command substitution's reads", src + "B=$(git rev-parse \"$REF\")\necho \"$B\"\n", []string{"B<-REF", "REF"}},
		{"a nested substitution", src + "B=$(echo \"$(echo \"$SHA\")\")\necho \"$B\"\n", []string{"B<-SHA", "SHA"}},
		{"backquotes", src + "B=`echo \"$SHA\"`\necho \"$B\"\n", []string{"B<-SHA", "SHA"}},
		// Standard input carries into read.
		{"a here-document into read", src + "read -r B <<EOF\n$SHA\nEOF\necho \"$B\"\n", []string{"B<-SHA", "SHA"}},
		{"while read over a here-string", src + "while read -r l; do echo \"$l\"; done <<< \"$LIST\"\n", []string{"LIST", "l<-LIST"}},
		{"a pipeline into while read", src + "echo \"$LIST\" | while read -r l; do echo \"$l\"; done\n", []string{"LIST", "l<-LIST"}},
		{"a process substitution into read", src + "read -r B < <(echo \"$SHA\")\necho \"$B\"\n", []string{"B<-SHA", "SHA"}},
		{"a file the agent names", src + "read -r B < \"$F\"\necho \"$B\"\n", []string{"B<-F", "F"}},
		{"a fixed file", src + "read -r B < /etc/hostname\necho \"$B\"\n", nil},
		{"a here-string of a literal", src + "read -r B <<< lit\necho \"$B\"\n", nil},
		// Numbers.
		{"arithmetic expansion", src + "B=$(( N * 2 ))\necho \"$B\"\n", []string{"B<-N", "N"}},
		{"arithmetic with a $", src + "B=$(( $N + 1 ))\necho \"$B\"\n", []string{"B<-N", "N"}},
		{"let", src + "let B=N+1\necho \"$B\"\n", []string{"B<-N", "N"}},
		{"increment of a covered name", src + "I=0\n(( I++ ))\necho \"$I\"\n", nil},
		{"increment of an uncovered name", src + "(( I++ ))\necho \"$I\"\n", []string{"I"}},
		{"compound assignment keeps the old value", src + "I=0\n(( I += N ))\necho \"$I\"\n", []string{"I<-N", "N"}},
		{"a comparison assigns nothing", src + "(( N == 1 ))\necho ok\n", []string{"N"}},
		// ${X:=v} assigns.
		{"an assigning default then a read", src + ": \"${X:=1}\"\necho \"$X\"\n", []string{"X"}},
		{"an assigning default of a covered name", src + "X=2\n: \"${X:=$D}\"\necho \"$X\"\n", []string{"D", "X<-D"}},
		// Reassignment clears.
		{"a literal clears a derived value", src + "B=\"$SHA\"\nB=fixed\necho \"$B\"\n", []string{"SHA"}},
		{"a covered copy clears", src + "C=lit\nB=\"$SHA\"\nB=\"$C\"\necho \"$B\"\n", []string{"SHA"}},
		{"self-assignment keeps the taint", src + "X=\"$X\"\necho \"$X\"\n", []string{"X"}},
		{"unset then a default", src + "B=\"$SHA\"\nunset B\necho \"${B:-x}\"\n", []string{"SHA"}},
		{"a readonly name cannot be cleared", src + "readonly X\nX=1\necho \"$X\"\n", []string{"X"}},
		{"a derived readonly keeps what it carried", src + "B=\"$SHA\"\nreadonly B\nB=x\necho \"$B\"\n", []string{"B<-SHA", "SHA"}},
		// Bash's own dynamic variables are never the agent's.
		{"RANDOM and LINENO", src + "echo \"$RANDOM\" \"$LINENO\" \"$BASHPID\"\n", nil},
		{"positional parameters are not names", src + "echo \"$1\" \"$@\" \"$#\"\n", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := varUses(t, tc.script); !slices.Equal(got, tc.want) {
				t.Errorf("uncovered reads %q, want %q\n%s", got, tc.want, tc.script)
			}
		})
	}
}
