#!/bin/sh
# One-shot job (temporal-admin-tools service): registers the product's search attributes with the
# namespace. TCR_SEARCH_ATTRIBUTES holds "Name=Type" pairs (src/workflows/search-attributes.ts).
# Idempotent: an attribute that already exists with the same type is left alone.
set -eu
: "${TEMPORAL_ADDRESS:?}" "${TEMPORAL_NAMESPACE:?}" "${TCR_SEARCH_ATTRIBUTES:?}"

tries=0
until temporal operator namespace describe --namespace "$TEMPORAL_NAMESPACE" >/dev/null 2>&1; do
  tries=$((tries + 1))
  [ "$tries" -lt 60 ] || { echo "namespace $TEMPORAL_NAMESPACE not available after 120 s" >&2; exit 1; }
  sleep 2
done

existing=$(temporal operator search-attribute list --namespace "$TEMPORAL_NAMESPACE")
for pair in $TCR_SEARCH_ATTRIBUTES; do
  name=${pair%%=*}
  type=${pair#*=}
  if printf '%s\n' "$existing" | grep -qw "$name"; then
    echo "search attribute $name already registered"
  else
    temporal operator search-attribute create --namespace "$TEMPORAL_NAMESPACE" --name "$name" --type "$type"
    echo "search attribute $name ($type) registered"
  fi
done
