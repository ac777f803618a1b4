#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Compare the cross-version runs of two in-tree checks:
#
#   utils/check-in-tree.sh --ns3=3.37 --results=A
#   utils/check-in-tree.sh --ns3=3.48 --results=B
#   utils/compare-in-tree-results.sh A B
#
# The reports, FCT files and PFC files must be byte-identical. The executed
# event counts must be equal too, but for one known difference: from ns-3.41
# on, ChannelList::Add schedules Channel::Initialize at time zero for every
# channel (ns-3 issue #703, "Initialize Channel objects at time zero"), so a
# run on 3.41 or later executes one event more per link than on 3.40 or
# earlier, and nothing else changes. Exits non-zero, naming the file or run,
# on any other difference.
set -euo pipefail

die() {
    echo "compare-in-tree-results: $*" >&2
    exit 1
}

(($# == 2)) || die "usage: utils/compare-in-tree-results.sh DIR_A DIR_B (folders of check-in-tree.sh --results)"
a=$1
b=$2
for d in "$a" "$b"; do
    [[ -f $d/ns3-version && -f $d/events.txt ]] ||
        die "$d is not a folder of check-in-tree.sh --results (no ns3-version or events.txt)"
done

# 1 for ns-3.41 and later (a channel's initialization is an event), else 0.
initializes_channels() {
    local v=$1
    [[ $(printf '%s\n' 3.41 "$v" | sort -V | head -n1) == 3.41 ]] && echo 1 || echo 0
}

va="$(cat "$a/ns3-version")"
vb="$(cat "$b/ns3-version")"
echo "comparing ns-$va ($a) with ns-$vb ($b)"

if ! diff -r --exclude=events.txt --exclude=ns3-version "$a" "$b"; then
    die "the reports or FCT/PFC files of ns-$va and ns-$vb differ (above)"
fi
echo "$(find "$a" -type f ! -name events.txt ! -name ns3-version | wc -l) reports and FCT/PFC files are identical"

shift_per_link=$(($(initializes_channels "$vb") - $(initializes_channels "$va")))
[[ $(cut -d' ' -f1 "$a/events.txt") == "$(cut -d' ' -f1 "$b/events.txt")" ]] ||
    die "the two folders hold different runs (events.txt)"
while read -r name events links; do
    other="$(awk -v n="$name" '$1 == n { print $2 }' "$b/events.txt")"
    expected=$((events + shift_per_link * links))
    printf '%-16s events ns-%s %s, ns-%s %s (%+d: %d links x %d)\n' "$name" "$va" "$events" "$vb" \
        "$other" $((other - events)) "$links" "$shift_per_link"
    [[ $other == "$expected" ]] ||
        die "$name: ns-$vb executed $other events, expected $expected (ns-$va's $events and one per link from ns-3.41 on)"
done <"$a/events.txt"
echo "same results on ns-$va and ns-$vb"
