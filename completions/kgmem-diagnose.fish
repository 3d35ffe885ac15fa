# fish completion for kgmem-diagnose(1); installed to vendor_completions.d.

set -l subcommands snapshot calc explain rules run

function __kgmem_diagnose_rule_ids
    set -l cmd (commandline -opc)[1]
    command $cmd rules list 2>/dev/null | string match -rv '^\s*(#|$)' | string replace -r '\s.*' ''
end

function __kgmem_diagnose_facts
    set -l cmd (commandline -opc)[1]
    command $cmd rules facts 2>/dev/null | string match -rv '^\s*$' | string replace -r '\s.*' '='
end

complete -c kgmem-diagnose -f
# Subcommands, only as the first argument.
complete -c kgmem-diagnose -n "not __fish_seen_subcommand_from $subcommands; and test (count (commandline -opc)) -eq 1" \
    -a snapshot -d 'View an allocator snapshot, memory_stats or memory_summary'
complete -c kgmem-diagnose -n "not __fish_seen_subcommand_from $subcommands; and test (count (commandline -opc)) -eq 1" \
    -a calc -d 'Closed-form tensor sizes; solve for a dimension'
complete -c kgmem-diagnose -n "not __fish_seen_subcommand_from $subcommands; and test (count (commandline -opc)) -eq 1" \
    -a explain -d 'Which product of known numbers makes a size'
complete -c kgmem-diagnose -n "not __fish_seen_subcommand_from $subcommands; and test (count (commandline -opc)) -eq 1" \
    -a rules -d 'List, show or check rules'
complete -c kgmem-diagnose -n "not __fish_seen_subcommand_from $subcommands; and test (count (commandline -opc)) -eq 1" \
    -a run -d 'Run a command and catch its OOM as it happens'

# Main options.
set -l main "not __fish_seen_subcommand_from $subcommands"
complete -c kgmem-diagnose -n $main -F
complete -c kgmem-diagnose -n $main -s c -l config -r -F -d 'Training config (YAML)'
complete -c kgmem-diagnose -n $main -s f -l format -x -a 'text json jsonl markdown github sarif' -d 'Output format'
complete -c kgmem-diagnose -n "__fish_seen_subcommand_from snapshot" -s f -l format -x -a 'text json' -d 'Output format'
complete -c kgmem-diagnose -n "__fish_seen_subcommand_from snapshot" -l width -x -d 'Wrap the text view at N columns (0: never)'
complete -c kgmem-diagnose -n $main -s o -l output -r -F -d 'Write the report to FILE'
complete -c kgmem-diagnose -n $main -l stdin-filename -r -F -d 'Name standard input in the report'
complete -c kgmem-diagnose -n $main -l label -x -d 'Add KEY=VALUE to every jsonl line'
complete -c kgmem-diagnose -n $main -l fail-on -x -a 'never info warning error' -d 'Exit 1 when an incident is at least LEVEL'
complete -c kgmem-diagnose -n $main -l diff -d 'Print suggested config changes as a unified diff'
complete -c kgmem-diagnose -n $main -l apply -d 'Write suggested changes to the --config files (numbered .orig backup)'
complete -c kgmem-diagnose -n $main -s r -l rules -x -a '(__fish_complete_directories)' -d 'Extra or replacement rule files'
complete -c kgmem-diagnose -n $main -s s -l set -x -a '(__kgmem_diagnose_facts)' -d 'Supply a fact, NAME=VALUE'
complete -c kgmem-diagnose -n $main -l color -l colour -x -a 'auto always never' -d 'Colour the text report'
complete -c kgmem-diagnose -n $main -l progress -d 'Show a progress line even when not a TTY'
complete -c kgmem-diagnose -n $main -l no-progress -d 'Never show a progress line'
complete -c kgmem-diagnose -n "not __fish_seen_subcommand_from calc explain rules run" -l svg -r -F -d 'Write a picture of memory over time (SVG)'
complete -c kgmem-diagnose -n $main -l width -x -d 'Wrap the text report at N columns (0: never)'
complete -c kgmem-diagnose -n $main -s q -l quiet -d 'Print only the verdict line of each incident'
complete -c kgmem-diagnose -n $main -s v -l verbose -d 'Print every finding, frame and remedy'
complete -c kgmem-diagnose -n $main -s V -l version -d 'Print version information and exit'
complete -c kgmem-diagnose -s h -l help -d 'Print help and exit'

# snapshot FILE...
complete -c kgmem-diagnose -n '__fish_seen_subcommand_from snapshot' -F
# calc EXPR... [--budget SIZE] [--solve NAME], or a named calculator
complete -c kgmem-diagnose -n '__fish_seen_subcommand_from calc; and test (count (commandline -opc)) -eq 2' \
    -a 'full-ranking negatives adam kv-cache activations attention logits alloc' -d 'Calculator'
# calc EXPR's options, or a named calculator's (one table for all of them)
set -l calculators full-ranking negatives adam kv-cache activations attention logits alloc
set -l calc_expr "__fish_seen_subcommand_from calc; and not __fish_seen_subcommand_from $calculators"
set -l calc_named "__fish_seen_subcommand_from calc; and __fish_seen_subcommand_from $calculators"
complete -c kgmem-diagnose -n $calc_expr -l budget -x -d 'Memory budget (e.g. 9GiB)'
complete -c kgmem-diagnose -n $calc_expr -l solve -x -d 'Name to solve for'
complete -c kgmem-diagnose -n $calc_expr -l round -x -a pow2 -d 'Round the solution: pow2 or a multiple'
complete -c kgmem-diagnose -n $calc_expr -l set -x -d 'A name in EXPR, NAME=VALUE'
set -l dtypes 'float32 float16 bfloat16 float64 int64 int32 int8 uint8 bool'
for o in batch entities dataset dim negatives params gpus layers kv-heads head-dim seq hidden heads vocab divisions
    complete -c kgmem-diagnose -n $calc_named -l $o -x
end
complete -c kgmem-diagnose -n $calc_named -l model -x -a 'transe distmult tucker conve transh transr pairre rescal complex rotate hake compgcn quate dualquate' -d 'Model'
complete -c kgmem-diagnose -n $calc_named -l dtype -x -a $dtypes -d 'Dtype'
complete -c kgmem-diagnose -n $calc_named -l precision -x -a 'bf16-mixed 16-mixed fp32 32-true bf16-true 16-true' -d 'Training precision'
complete -c kgmem-diagnose -n $calc_named -l 8bit -d '8-bit optimizer states'
complete -c kgmem-diagnose -n $calc_named -l zero -x -a '0 1 2 3' -d 'ZeRO stage'
# explain SIZE [--config FILE]... [--known NAME=VALUE]... [--tensor] [--divisions SPEC] [--dtype T] [-n N]
set -l explain '__fish_seen_subcommand_from explain'
complete -c kgmem-diagnose -n $explain -s c -l config -r -F -d 'Training config (YAML)'
complete -c kgmem-diagnose -n $explain -l known -x -d 'A named number, NAME=VALUE'
complete -c kgmem-diagnose -n $explain -l tensor -d "SIZE is the tensor's own size"
complete -c kgmem-diagnose -n $explain -l divisions -x -d 'roundup_power2_divisions'
complete -c kgmem-diagnose -n $explain -l dtype -x -a $dtypes -d 'Preferred dtype'
complete -c kgmem-diagnose -n $explain -s n -x -d 'How many candidates'
# rules list|show ID|check [DIR]|facts
complete -c kgmem-diagnose -n '__fish_seen_subcommand_from rules; and not __fish_seen_subcommand_from list show check facts' \
    -a 'list show check facts'
complete -c kgmem-diagnose -n '__fish_seen_subcommand_from rules' -s r -l rules -x -a '(__fish_complete_directories)' -d 'Extra or replacement rule files'
complete -c kgmem-diagnose -n '__fish_seen_subcommand_from rules; and __fish_seen_subcommand_from show' \
    -a '(__kgmem_diagnose_rule_ids)' -d 'Rule'
complete -c kgmem-diagnose -n '__fish_seen_subcommand_from rules; and __fish_seen_subcommand_from check' \
    -a '(__fish_complete_directories)'
# run [OPTIONS] -- CMD [ARGS...]
set -l run_opts "__fish_seen_subcommand_from run; and not contains -- -- (commandline -opc)"
complete -c kgmem-diagnose -n $run_opts -l report -r -F -d 'Write the JSON report (JSON Lines with --label)'
complete -c kgmem-diagnose -n $run_opts -l label -x -d 'Run metadata, KEY=VALUE'
complete -c kgmem-diagnose -n $run_opts -l log -r -F -d 'Keep the captured output in FILE'
complete -c kgmem-diagnose -n $run_opts -l snapshot-on-oom -x -a '(__fish_complete_directories)' -d 'Python: dump the allocator snapshot at an OOM'
complete -c kgmem-diagnose -n $run_opts -s f -l format -x -a 'text json markdown github sarif' -d 'Format of the diagnosis on stderr'
complete -c kgmem-diagnose -n $run_opts -l fail-on -x -a 'never info warning error' -d 'Exit 1 when CMD exited 0 but an incident is at least LEVEL'
complete -c kgmem-diagnose -n $run_opts -s c -l config -r -F -d 'Training config (YAML)'
# after "--": CMD and its arguments, completed as if typed alone
function __kgmem_diagnose_run_cmd
    set -l toks (commandline -opc)
    set -l i (contains -i -- -- $toks)
    set -l rest $toks[(math $i + 1)..-1]
    complete -C (string join ' ' -- $rest (commandline -ct))
end
complete -c kgmem-diagnose -n "__fish_seen_subcommand_from run; and contains -- -- (commandline -opc)" \
    -a '(__kgmem_diagnose_run_cmd)'
