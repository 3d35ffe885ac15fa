# help_values.sh — sourced by the shell tests that check that an option's
# values agree everywhere (test_man_options.sh, test_completion.sh).
# help_values HELP OPTION prints the values OPTION's entry in the --help
# text HELP lists ("never (default), info, warning, error" or "text
# (default) or json"), sorted, on one line separated by spaces; nothing when
# the entry lists none.
help_values() {
	printf '%s\n' "$1" | awk -v o="$2" '
		/^ *-/ { on = 0 }
		/^ *-/ && index($0, o " ") { on = 1 }
		on { t = t " " $0 }
		END { gsub(/ +/, " ", t); print t }' |
		grep -oE '[a-z0-9]+( \(default\))?((, | or )[a-z0-9]+)+' | head -1 |
		sed 's/ (default)//; s/, /\n/g; s/ or /\n/g' | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//'
}
