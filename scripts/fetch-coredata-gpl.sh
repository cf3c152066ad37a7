#!/bin/sh
# Fetch the copyleft Core Data models listed in Tests/Fixtures/CoreDataWild/GPL.tsv into DEST
# (default: a folder outside the repository), for local surveys only. They are not committed:
# see the "Copyleft models" section of Tests/Fixtures/CoreDataWild/MANIFEST.md.
#
#   scripts/fetch-coredata-gpl.sh [DEST]      then   scripts/coredata-survey.py DEST
#
# Each repository is cloned shallow and sparse (only the bundles with the listed name, wherever
# they are now), from its default branch, into DEST/<owner>__<repo>. Needs git and network access.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
list="$here/Tests/Fixtures/CoreDataWild/GPL.tsv"
dest=${1:-"$here/../coredata-gpl"}
mkdir -p "$dest"
tail -n +2 "$list" | while IFS="$(printf '\t')" read -r repo licence bundle note; do
    [ -n "$repo" ] || continue
    name=$(basename "$bundle")
    target="$dest/$(echo "$repo" | sed 's#/#__#')"
    if [ -d "$target/.git" ]; then
        echo "have $repo"
        continue
    fi
    echo "fetching $repo ($licence): $name"
    git clone --quiet --depth 1 --filter=blob:none --no-checkout "https://github.com/$repo.git" "$target"
    git -C "$target" sparse-checkout set --no-cone "/**/$name/**" "/$name/**"
    git -C "$target" checkout --quiet
    git -C "$target" rev-parse HEAD > "$target/.fetched-commit"
done
echo "done: $dest"
