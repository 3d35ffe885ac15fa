# bash completion for kgmem-diagnose(1)                      -*- shell-script -*-
# Installed as bash-completion's completions/kgmem-diagnose. Self-contained:
# uses bash-completion's _filedir when it is loaded, compgen otherwise.

# Rule ids for `rules show`: the first field of each line of `rules list`;
# nothing when the command fails.
_kgmem_diagnose_rule_ids()
{
	local IFS=$' \t\n'
	"$1" rules list 2>/dev/null | while read -r id _; do
		case $id in
		"" | \#*) ;;
		*) printf '%s\n' "$id" ;;
		esac
	done
}

_kgmem_diagnose_files()
{
	# $1: "dirs" for directories only, else extensions ("yaml yml") or ""
	# for any file; directories are always offered to descend into.
	if declare -F _filedir >/dev/null; then
		if [[ $1 == dirs ]]; then _filedir -d
		elif [[ -n $1 ]]; then local e=${1// /|}; _filedir "@($e)"
		else _filedir; fi
		return
	fi
	local IFS=$'\n' e
	COMPREPLY+=($(compgen -d -- "$cur"))
	if [[ $1 != dirs ]]; then
		if [[ -z $1 ]]; then
			COMPREPLY+=($(compgen -f -X '' -- "$cur"))
		else
			for e in $(IFS=' '; printf '%s\n' $1); do
				COMPREPLY+=($(compgen -f -X "!*.$e" -- "$cur"))
			done
		fi
	fi
	# A directory matches both compgen -d and -f: keep one of each.
	COMPREPLY=($(printf '%s\n' "${COMPREPLY[@]}" | awk 'NF && !seen[$0]++'))
	compopt -o filenames 2>/dev/null
}

# Fact names for --set, as NAME=: the first field of `rules facts`.
_kgmem_diagnose_facts()
{
	"$1" rules facts 2>/dev/null | awk 'NF { print $1 "=" }'
}

_kgmem_diagnose()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
	local cmd=${COMP_WORDS[0]} sub="" i
	COMPREPLY=()

	# --opt=value: bash splits at '=' (COMP_WORDBREAKS).
	if [[ $cur == = ]]; then
		cur="" prev=${COMP_WORDS[COMP_CWORD-1]}
	elif [[ $prev == = && $COMP_CWORD -ge 2 ]]; then
		prev=${COMP_WORDS[COMP_CWORD-2]}
	fi

	# A subcommand is only ever the first argument (as main.c dispatches).
	if ((COMP_CWORD > 1)); then
		case ${COMP_WORDS[1]} in
		snapshot | calc | explain | rules | run) sub=${COMP_WORDS[1]} ;;
		esac
	fi

	# run [OPTIONS] -- CMD [ARGS...]: after "--" or the first word that is
	# not an option (or an option's value), CMD's own words.
	if [[ $sub == run ]]; then
		for ((i = 2; i < COMP_CWORD; i++)); do
			case ${COMP_WORDS[i]} in
			--report | --label | --log | --snapshot-on-oom | -f | --format | --fail-on | -c | --config)
				((i++)) ;;
			-*) [[ ${COMP_WORDS[i]} == -- ]] && break ;;
			*) break ;;
			esac
		done
		if ((i < COMP_CWORD)); then
			[[ ${COMP_WORDS[i]} == -- ]] && i=$((i + 1))
			if ((i == COMP_CWORD)); then
				COMPREPLY=($(compgen -c -- "$cur"))
			else
				_kgmem_diagnose_files ''
			fi
			return
		fi
		case $prev in
		--report | --log) _kgmem_diagnose_files ''; return ;;
		--snapshot-on-oom) _kgmem_diagnose_files dirs; return ;;
		--label) return ;;
		esac
	fi

	case $prev in
	-f | --format)
		if [[ $sub == snapshot ]]; then
			COMPREPLY=($(compgen -W "text json" -- "$cur"))
		elif [[ $sub == run ]]; then
			COMPREPLY=($(compgen -W "text json markdown github sarif" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "text json jsonl markdown github sarif" -- "$cur"))
		fi
		return ;;
	-o | --output)
		_kgmem_diagnose_files ''; return ;;
	--stdin-filename)
		_kgmem_diagnose_files ''; return ;;
	--label)
		return ;;
	--fail-on)
		COMPREPLY=($(compgen -W "never info warning error" -- "$cur")); return ;;
	--color | --colour)
		COMPREPLY=($(compgen -W "auto always never" -- "$cur")); return ;;
	-c | --config)
		_kgmem_diagnose_files 'yaml yml json'; return ;;
	-r | --rules)
		_kgmem_diagnose_files dirs; return ;;
	--svg)
		_kgmem_diagnose_files svg; return ;;
	-s | --set)
		if [[ -z $sub ]]; then
			local IFS=$'\n'
			COMPREPLY=($(compgen -W "$(_kgmem_diagnose_facts "$cmd")" -- "$cur"))
			compopt -o nospace 2>/dev/null
		fi
		return ;;
	--dtype)
		[[ $sub == calc || $sub == explain ]] &&
			COMPREPLY=($(compgen -W "float32 float16 bfloat16 float64 int64 int32 int8 uint8 bool" -- "$cur"))
		return ;;
	--budget | --solve | --label | --params | --batch | --dim | --seq | --vocab | --width)
		return ;;
	esac

	local opts="--config --format --fail-on --diff --apply --rules --set --color
		--progress --no-progress --svg --width --quiet --verbose --output --stdin-filename --label
		--version --help"
	case $sub in
	rules)
		[[ $cur == -* ]] && { COMPREPLY=($(compgen -W "--rules --help" -- "$cur")); return; }
		local n=0
		for ((i = 1; i < COMP_CWORD; i++)); do
			[[ ${COMP_WORDS[i]} == -* ]] || n=$((n + 1))
		done
		# n counts "rules" and the words after it.
		if ((n == 1)); then
			COMPREPLY=($(compgen -W "list show check facts" -- "$cur"))
		elif ((n == 2)); then
			local action
			for ((i = COMP_CWORD - 1; i > 0; i--)); do
				[[ ${COMP_WORDS[i]} == -* ]] || { action=${COMP_WORDS[i]}; break; }
			done
			case $action in
			show)
				local IFS=$'\n'
				COMPREPLY=($(compgen -W "$(_kgmem_diagnose_rule_ids "$cmd")" -- "$cur")) ;;
			check) _kgmem_diagnose_files dirs ;;
			esac
		fi
		return ;;
	calc)
		if [[ $cur != -* && $COMP_CWORD -eq 2 ]]; then
			COMPREPLY=($(compgen -W "full-ranking negatives adam kv-cache activations attention logits alloc" -- "$cur"))
			return
		fi
		[[ $cur == -* ]] || return
		# a named calculator's options, or those of calc EXPR
		case ${COMP_WORDS[2]} in
		full-ranking | negatives | adam | kv-cache | activations | attention | logits | alloc)
			COMPREPLY=($(compgen -W "--batch --entities --dataset --dim --model --dtype --negatives --params --precision --8bit --zero --gpus --layers --kv-heads --head-dim --seq --hidden --heads --vocab --divisions --help" -- "$cur")) ;;
		*)
			COMPREPLY=($(compgen -W "--budget --solve --round --set --help" -- "$cur")) ;;
		esac
		return ;;
	explain)
		[[ $cur == -* ]] && COMPREPLY=($(compgen -W "--config --known --tensor --divisions --dtype -n --help" -- "$cur"))
		return ;;
	snapshot)
		opts="--format --svg --width --help" ;;
	run)
		opts="--report --label --log --snapshot-on-oom --format --fail-on --config --help --"
		if [[ $cur != -* ]]; then
			# the command: "--" first, then its name
			if [[ -z $cur ]]; then COMPREPLY=(--); else COMPREPLY=($(compgen -c -- "$cur")); fi
			return
		fi ;;
	esac

	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
		return
	fi
	if [[ -z $sub && $COMP_CWORD -eq 1 ]]; then
		COMPREPLY=($(compgen -W "snapshot calc explain rules run" -- "$cur"))
	fi
	_kgmem_diagnose_files ''
}
complete -F _kgmem_diagnose kgmem-diagnose
