#!/usr/bin/env bash
# The documentation agrees with the binary: every command `rigtune --help` lists
# has its page, docs/commands/NAME.md, whose usage block is exactly what
# `rigtune NAME --help` prints (scripts/docs-help.sh rewrites the blocks); the
# README stays a first page (<= 250 lines); every relative link in README.md and
# docs/ names a file that exists.
# beside: others (the documents)
. "$(dirname "$0")/lib.sh"
R=$RIGTUNE

$R --help >"$TMP/help"
# The commands: the indented names between "Commands:" and the blank line after.
cmds=$(awk '/^Commands:/ { on = 1; next } on && /^$/ { exit } on { print $1 }' "$TMP/help")
if [ "$(echo "$cmds" | wc -w)" -ge 9 ]; then ok "--help lists the commands ($(echo $cmds))"
else not_ok "--help lists the commands" "found: $cmds"; fi

for c in $cmds; do
  page=docs/commands/$c.md
  if [ ! -f "$page" ]; then not_ok "$c has its page" "no $page"; continue; fi
  awk -v name="$c" '
    index($0, "<!-- rigtune " name " --help: end") == 1 { on = 0 }
    on && !/^```/ { print }
    index($0, "<!-- rigtune " name " --help: begin") == 1 { on = 1 }
  ' "$page" >"$TMP/page-$c"
  $R "$c" --help >"$TMP/help-$c"
  if [ ! -s "$TMP/page-$c" ]; then
    not_ok "$page carries rigtune $c --help" "no usage block between its begin/end markers"
  elif diff -u "$TMP/page-$c" "$TMP/help-$c" >"$TMP/diff-$c"; then
    ok "$page carries rigtune $c --help, word for word"
  else
    not_ok "$page carries rigtune $c --help, word for word" \
      "run scripts/docs-help.sh; the difference:" "$(head -20 "$TMP/diff-$c")"
  fi
done

lines=$(wc -l <README.md)
if [ "$lines" -le 250 ]; then ok "README.md is a first page ($lines lines <= 250)"
else not_ok "README.md is a first page" "$lines lines > 250: move the detail to docs/"; fi

# Relative links [text](path) and [text](path#anchor), from the page's own folder.
broken=()
for md in README.md docs/*.md docs/*/*.md examples/README.md; do
  dir=$(dirname "$md")
  while IFS= read -r target; do
    case $target in http*|mailto:*|\#*) continue ;; esac
    [ -e "$dir/${target%%#*}" ] || broken+=("$md -> $target")
  done < <(grep -oE '\]\([^) ]+\)' "$md" | sed -E 's/^\]\((.*)\)$/\1/')
done
if [ ${#broken[@]} -eq 0 ]; then ok "every relative link in README.md and docs/ names a file"
else not_ok "every relative link in README.md and docs/ names a file" "${broken[@]}"; fi

for f in space-file configuration journal check-result params replay-csv; do
  if [ -s "docs/formats/$f.md" ]; then ok "the $f format has its page"
  else not_ok "the $f format has its page" "no docs/formats/$f.md"; fi
done
echo "1..$n"
