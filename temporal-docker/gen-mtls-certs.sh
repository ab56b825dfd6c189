#!/bin/sh
# Makes the certificates docker-compose.mtls.yml mounts: a CA, the frontend's server certificate
# (names temporal and localhost) and one client certificate per client (worker, ingress, ui, admin,
# and operator-NAME for each NAME given), in secrets/mtls/ (git-ignored), keys mode 0600.
#   sh gen-mtls-certs.sh alice bob      # then: docker compose -f docker-compose.yml -f docker-compose.mtls.yml up -d
# Each operator's tcr then connects with TEMPORAL_TLS_CERT/TEMPORAL_TLS_KEY/TEMPORAL_TLS_CA pointing
# at secrets/mtls/operator-NAME.pem, operator-NAME.key and ca.pem (docs/going-live.md).
set -eu
cd "$(dirname "$0")"
out=${TCR_MTLS_DIR:-secrets/mtls}
days=${TCR_MTLS_DAYS:-365}
mkdir -p "$out"
umask 077
if [ ! -f "$out/ca.key" ]; then
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days "$days" \
    -subj "/O=tcr/CN=tcr temporal CA" -keyout "$out/ca.key" -out "$out/ca.pem" 2>/dev/null
fi
issue() { # name subject extensions
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "$2" \
    -keyout "$out/$1.key" -out "$out/$1.csr" 2>/dev/null
  printf '%s\n' "$3" >"$out/$1.ext"
  openssl x509 -req -in "$out/$1.csr" -CA "$out/ca.pem" -CAkey "$out/ca.key" -CAcreateserial \
    -days "$days" -extfile "$out/$1.ext" -out "$out/$1.pem" 2>/dev/null
  rm -f "$out/$1.csr" "$out/$1.ext"
}
issue frontend "/O=tcr/CN=temporal" "subjectAltName=DNS:temporal,DNS:localhost,IP:127.0.0.1
extendedKeyUsage=serverAuth,clientAuth"
for client in worker ingress ui admin; do
  issue "$client" "/O=tcr/OU=service/CN=$client" "extendedKeyUsage=clientAuth"
done
for name in "$@"; do
  issue "operator-$name" "/O=tcr/OU=operator/CN=$name" "extendedKeyUsage=clientAuth"
done
chmod 644 "$out"/*.pem
echo "certificates in $out"
