# Scenario: sart's CRDs (from its `crdgen`, as its Makefile makes them: the committed manifests/crd/sart.yaml is older than the code) and BGPPeerTemplates; Node node-a (labels bgp=a, an ASN, an InternalIP); `sartd controller` started (dual mode: its eight reconcilers, ClusterBGP, AddressPool, AddressBlock, BlockRequest, Node, BGPAdvertisement, Service, EndpointSlice; no webhook configuration registered, no BGP daemon); ClusterBGP clusterbgp-spine0 created (its NodeBGP made), node-a relabelled out of it and back in; a service AddressPool (its AddressBlock made) and a pod AddressPool; a BlockRequest (a pod AddressBlock made, its status patched); a LoadBalancer Service of the service pool and its EndpointSlice (an address allocated, the slice annotated, a BGPAdvertisement made), then deleted (the address released, the advertisement withdrawn; first another address asked for, the first's advertisement deleted by the controller); a BGPAdvertisement created, marked advertised, deleted (withdrawn, then released as the agent would); everything deleted again (each finalizer's cleanup); the controller stopped
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
"$OPERATOR_TARGET/crdgen" >"$RECORD_LOGS/sart-crds.yaml"
crd "$RECORD_LOGS/sart-crds.yaml"
# Established is not yet servable: until the kinds' storage is ready the API server answers 429
# "storage is (re)initializing", and the controller's first list unwraps that.
until_ok 60 k get clusterbgps,nodebgps,bgppeertemplates,bgppeers,bgpadvertisements,addresspools,addressblocks,blockrequests -A
k apply -f "$OPERATOR_SRC/manifests/cni/sample/peer_template.yaml" >/dev/null

# The controller serves its webhooks and metrics over TLS (never called here: no webhook
# configuration points at it); a throwaway certificate and free ports.
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=sart-controller \
  -keyout "$RECORD_LOGS/tls.key" -out "$RECORD_LOGS/tls.cert" >/dev/null 2>&1
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# A node as the kubelet registers it: labels (the ClusterBGP's selector, the ASN it reads) and an
# InternalIP (its router ID).
k apply -f - >/dev/null <<'EOF'
apiVersion: v1
kind: Node
metadata:
  name: node-a
  labels: {bgp: a, sart.terassyi.net/asn: "65000"}
EOF
k patch node node-a --subresource=status --type merge \
  -p '{"status":{"addresses":[{"type":"InternalIP","address":"10.0.0.1"}]}}' >/dev/null

start sartd "$OPERATOR_TARGET/sartd" controller --mode dual \
  --http-port "$(free_port)" --https-port "$(free_port)" \
  --tls-cert "$RECORD_LOGS/tls.cert" --tls-key "$RECORD_LOGS/tls.key"
until_ok 60 jsonpath_is node.sart.terassyi.net/finalizer node node-a -o 'jsonpath={.metadata.finalizers[0]}'

# ClusterBGP: node-a joins (a NodeBGP created with the template's peer), leaves (the NodeBGP's
# labels replaced, the ClusterBGP's status too), joins again (the NodeBGP's status replaced).
k apply -f "$OPERATOR_SRC/manifests/cni/sample/cluster_bgp_spine0.yaml" >/dev/null
until_ok 60 jsonpath_is node-a clusterbgp clusterbgp-spine0 -o 'jsonpath={.status.nodes[*]}'
until_ok 60 jsonpath_is 65000 nodebgp node-a -o 'jsonpath={.spec.asn}'
k label node node-a bgp=b --overwrite >/dev/null
until_ok 60 jsonpath_is b nodebgp node-a -o 'jsonpath={.metadata.labels.bgp}'
until_ok 60 jsonpath_is "" clusterbgp clusterbgp-spine0 -o 'jsonpath={.status.nodes[*]}'
k label node node-a bgp=a --overwrite >/dev/null
until_ok 60 jsonpath_is node-a clusterbgp clusterbgp-spine0 -o 'jsonpath={.status.nodes[*]}'
until_ok 60 jsonpath_is clusterbgp-spine0 nodebgp node-a -o 'jsonpath={.status.clusterBgpRefs[*]}'

# AddressPools: a service pool (its AddressBlock created), a pod pool (kept in memory).
k apply -f - >/dev/null <<'EOF'
apiVersion: sart.terassyi.net/v1alpha2
kind: AddressPool
metadata: {name: lb-pool}
spec: {cidr: 10.0.100.0/24, type: service, allocType: bit, blockSize: 24, autoAssign: false}
---
apiVersion: sart.terassyi.net/v1alpha2
kind: AddressPool
metadata: {name: pod-pool}
spec: {cidr: 10.1.0.0/24, type: pod, allocType: bit, blockSize: 29, autoAssign: true}
EOF
until_ok 60 jsonpath_is controller.addressblock.sart.terassyi.net/finalizer addressblock lb-pool -o 'jsonpath={.metadata.finalizers[0]}'
until_ok 60 jsonpath_is addresspool.sart.terassyi.net/finalizer addresspool pod-pool -o 'jsonpath={.metadata.finalizers[0]}'

# A BlockRequest, as the agent makes one for its node: a pod AddressBlock created, its status set.
k apply -f - >/dev/null <<'EOF'
apiVersion: sart.terassyi.net/v1alpha2
kind: BlockRequest
metadata: {name: pod-pool-node-a}
spec: {pool: pod-pool, node: node-a}
EOF
until_ok 60 jsonpath_is 0 addressblock pod-pool-0 -o 'jsonpath={.status.index}'

# withdraw NAME: deletes the BGPAdvertisement NAME of namespace default, which the controller
# withdraws from its peers (its status replaced) and holds until the agent has released every
# peer; then plays that agent. (One without peers in its status goes at once.)
withdraw() {
  k delete bgpadvertisement "$1" --wait=false >/dev/null
  until_ok 60 withdrawn_or_gone "$1"
  k patch bgpadvertisement "$1" --subresource=status --type json \
    -p '[{"op":"replace","path":"/status/peers","value":{}}]' >/dev/null 2>&1 || true
  k wait --for=delete "bgpadvertisement/$1" --timeout=60s >/dev/null 2>&1 || true
  ! k get bgpadvertisement "$1" >/dev/null 2>&1
}
# withdraw_deleted NAME: the same, for an advertisement the controller deletes itself.
withdraw_deleted() {
  until_ok 60 deleting_or_gone "$1"
  until_ok 60 withdrawn_or_gone "$1"
  k patch bgpadvertisement "$1" --subresource=status --type json \
    -p '[{"op":"replace","path":"/status/peers","value":{}}]' >/dev/null 2>&1 || true
  k wait --for=delete "bgpadvertisement/$1" --timeout=60s >/dev/null 2>&1 || true
  ! k get bgpadvertisement "$1" >/dev/null 2>&1
}
deleting_or_gone() {
  local at
  at="$(k get bgpadvertisement "$1" -o 'jsonpath={.metadata.deletionTimestamp}' 2>&1)" || return 0
  [ -n "$at" ]
}
withdrawn_or_gone() {
  local peers
  peers="$(k get bgpadvertisement "$1" -o 'jsonpath={.status.peers.*}' 2>&1)" || return 0
  [ -n "$peers" ] && [ -z "$(echo "$peers" | tr ' ' '\n' | grep -v '^Withdraw$')" ]
}
jsonpath_set() { [ -n "$(k get "$@" 2>/dev/null)" ]; }

# A LoadBalancer Service of lb-pool and its EndpointSlice (as the EndpointSlice controller makes
# it): an address allocated from lb-pool's block (the Service's status replaced), the slice
# annotated, a BGPAdvertisement of the address to node-a's peer. Deleted: the Service's address
# released (its status replaced again), the advertisement withdrawn.
k apply -f - >/dev/null <<'EOF'
apiVersion: v1
kind: Service
metadata: {name: web, namespace: default, annotations: {sart.terassyi.net/addresspool: lb-pool}}
spec: {type: LoadBalancer, selector: {app: web}, ports: [{port: 80, targetPort: 8080, protocol: TCP}]}
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: web-1, namespace: default, labels: {kubernetes.io/service-name: web}}
addressType: IPv4
endpoints: [{addresses: [10.1.0.2], nodeName: node-a, conditions: {ready: true, serving: true}}]
ports: [{port: 8080, protocol: TCP}]
EOF
until_ok 60 jsonpath_set service web -o 'jsonpath={.status.loadBalancer.ingress[*].ip}'
until_ok 60 jsonpath_set bgpadvertisement -l kubernetes.io/service-name=web -o 'jsonpath={.items[*].metadata.name}'
first_adv="$(k get bgpadvertisement -l kubernetes.io/service-name=web -o 'jsonpath={.items[0].metadata.name}')"
# Another address asked for: the first released, the other allocated, an advertisement of it
# made and the first's deleted by the controller (withdrawn, then released).
k annotate service web sart.terassyi.net/loadBalancerIPs=10.0.100.10 >/dev/null
until_ok 60 jsonpath_is 10.0.100.10 service web -o 'jsonpath={.status.loadBalancer.ingress[*].ip}'
until_ok 60 k get bgpadvertisement web-1-10.0.100.10
withdraw_deleted "$first_adv"
k delete service web --timeout=60s >/dev/null
k delete endpointslice web-1 --timeout=60s >/dev/null
withdraw web-1-10.0.100.10

# A BGPAdvertisement of the scenario's own: marked advertised to a peer (as the agent does),
# then withdrawn.
k apply -f - >/dev/null <<'EOF'
apiVersion: sart.terassyi.net/v1alpha2
kind: BGPAdvertisement
metadata: {name: pod-pool-0, namespace: default}
spec: {cidr: 10.1.0.0/29, type: pod, protocol: ipv4}
EOF
until_ok 60 jsonpath_is bgpadvertisement.sart.terassyi.net/finalizer bgpadvertisement pod-pool-0 -o 'jsonpath={.metadata.finalizers[0]}'
k patch bgpadvertisement pod-pool-0 --subresource=status --type merge \
  -p '{"status":{"peers":{"spine0":"Advertised"}}}' >/dev/null
sleep 2
withdraw pod-pool-0
# Everything deleted, each held by its finalizer until the controller's cleanup: the request,
# the blocks (the pod block's index released), the pools (no labelled block left), the
# ClusterBGP, the node (which the controller deletes itself).
k delete blockrequest pod-pool-node-a --timeout=60s >/dev/null
k delete addressblock pod-pool-0 lb-pool --timeout=60s >/dev/null
k delete addresspool lb-pool pod-pool --timeout=60s >/dev/null
k delete clusterbgp clusterbgp-spine0 --timeout=60s >/dev/null
k delete node node-a --timeout=60s >/dev/null
sleep 2
stop
grep -c "reconcile failed" "$RECORD_LOGS/sartd.log" >&2 || true
