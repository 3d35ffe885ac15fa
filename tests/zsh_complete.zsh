#!/bin/zsh -f
# zsh_complete.zsh COMPDIR LINE... — drives zsh's own completion engine
# (compinit, _arguments, the _kgmem-diagnose function from COMPDIR) the way
# a person at a terminal would: an interactive zsh on a pseudo-terminal
# (zsh/zpty) gets each LINE and a Tab. compadd is wrapped to print the
# matches it adds (with the suffix given by -S, as in "dataset.entities=";
# unquoted: compadd -A gives "calc.\*"), between markers printed by
# compprefuncs/comppostfuncs. Prints, per LINE, its matches sorted and
# unique on one line (empty when none). Exit 2 when
# zsh/zpty is missing. The test (test_completion.sh) runs it under timeout.
if [[ $1 == --inner ]]; then
	# sourced by the zsh on the pseudo-terminal
	compadd() {
		# -O/-A/-D only compute matches into an array: not an addition
		if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then builtin compadd "$@"; return; fi
		local -a __kg_hits __kg_suf
		zparseopts -E S:=__kg_suf
		builtin compadd -A __kg_hits "$@"
		local h
		for h in $__kg_hits; do print -r -- "__HIT__${(Q)h}${__kg_suf[2]}"; done
		builtin compadd "$@"
	}
	__kg_pre() { print -r -- __BEGIN__ }
	__kg_post() { print -r -- __END__ }
	__kg_complete() {
		# compinit empties these arrays after each completion
		compprefuncs=(__kg_pre) comppostfuncs=(__kg_post)
		zle complete-word
		BUFFER= CURSOR=0
	}
	zle -N __kg_complete
	bindkey '^I' __kg_complete
	zstyle ':completion:*' insert-tab false
	zstyle ':completion:*' list-grouped false
	# no listing: a list longer than the pseudo-terminal asks "do you wish
	# to see all N possibilities?", and that prompt eats the next line's
	# first character
	unsetopt AUTO_LIST LIST_AMBIGUOUS
	LISTMAX=100000
	return 0
fi
zmodload zsh/zpty || exit 2
compdir=$1
shift
zpty kg zsh -f -i || exit 2
zpty -w kg "PROMPT= RPROMPT= PS2=; fpath=(${(q)compdir} \$fpath); autoload -Uz compinit; compinit -u -D; source ${(q)0:A} --inner; print -r -- __READY__"
while zpty -r kg l; do [[ $l == *__READY__* && $l != *print* ]] && break; done
for line in "$@"; do
	zpty -w -n kg "$line"$'\t'
	out=
	while zpty -r kg l; do
		out+=$l
		[[ $out == *__END__* ]] && break
	done
	hits=(${(M)${(f)${${${out#*__BEGIN__}%%__END__*}//$'\r'/}}:#__HIT__*})
	hits=(${(ou)hits#__HIT__})
	print -r -- "${(j: :)hits}"
done
zpty -d kg
