"""The Kubernetes manifests of examples/k8s parse and carry what Kubeflow's MPIJob (v2beta1)
and the MS_ROLE dynamic-cluster launch need; they are not run here (no cluster): this checks
them against the schemas an API server would (Kubernetes' own resources against its OpenAPI
schema, from the kubernetes-validate package; the MPIJob against the MPI Operator's CRD schema,
pinned in schemas/), the environment each pod gets, and that both launch the same script.

Both validations are strict, as `kubectl apply` is by default since Kubernetes 1.25 (server-side
field validation): a field the schema does not know is an error, not silently dropped.
"""
import copy
import json
from pathlib import Path

import jsonschema
import kubernetes_validate
import pytest

K8S = Path(__file__).resolve().parents[2] / "examples" / "k8s"
SCHEMAS = Path(__file__).resolve().parent / "schemas"
KUBERNETES_VERSION = "1.33.0"
CLUSTER_VARS = {"MS_ROLE", "MS_SCHED_HOST", "MS_SCHED_PORT", "MS_WORKER_NUM", "MS_CLUSTER_TOKEN"}


def _load(name):
    return json.loads((K8S / name).read_text())


def _containers(template):
    containers = template["spec"]["containers"]
    assert containers and all(c["image"] and c["name"] for c in containers)
    return containers


def test_mpijob_has_kubeflows_required_fields():
    job = _load("mpijob.json")
    assert job["apiVersion"] == "kubeflow.org/v2beta1" and job["kind"] == "MPIJob"
    spec = job["spec"]
    assert spec["mpiImplementation"] == "MPICH" and spec["slotsPerWorker"] >= 1
    launcher, worker = spec["mpiReplicaSpecs"]["Launcher"], spec["mpiReplicaSpecs"]["Worker"]
    assert launcher["replicas"] == 1
    command = _containers(launcher["template"])[0]["command"]
    # the launcher starts one rank per worker slot
    ranks = int(command[command.index("-n") + 1])
    assert command[0] == "mpirun" and ranks == worker["replicas"] * spec["slotsPerWorker"]
    assert "examples/data_parallel/train.py" in command
    _containers(worker["template"])


def test_dynamic_cluster_pods_get_the_ms_role_environment():
    items = {(i["kind"], i["metadata"]["name"]): i for i in _load("dynamic-cluster.json")["items"]}
    service = items[("Service", "minispore-scheduler")]
    scheduler = items[("Job", "minispore-scheduler")]["spec"]
    workers = items[("Job", "minispore-workers")]["spec"]
    assert service["spec"]["selector"] == scheduler["template"]["metadata"]["labels"]
    envs = {}
    for role, job in (("MS_SCHED", scheduler), ("MS_WORKER", workers)):
        container, = _containers(job["template"])
        env = {e["name"]: e.get("value", e.get("valueFrom")) for e in container["env"]}
        assert CLUSTER_VARS <= set(env) and env["MS_ROLE"] == role
        assert env["MS_SCHED_PORT"] == str(service["spec"]["ports"][0]["port"])
        assert "examples/data_parallel/train.py" in " ".join(container["command"])
        envs[role] = env
    assert envs["MS_WORKER"]["MS_SCHED_HOST"] == service["metadata"]["name"]
    assert envs["MS_WORKER"]["MS_WORKER_NUM"] == str(workers["completions"])
    assert workers["completionMode"] == "Indexed"     # MS_NODE_ID from the pod's index
    secret = items[("Secret", "minispore-cluster-token")]["metadata"]["name"]
    for env in envs.values():
        assert env["MS_CLUSTER_TOKEN"]["secretKeyRef"]["name"] == secret


def _strict(schema):
    """A CRD's structural schema where an object with listed properties refuses others, as the
    API server's strict field validation does (x-kubernetes-preserve-unknown-fields keeps
    them)."""
    schema = copy.deepcopy(schema)
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if ("properties" in node and "additionalProperties" not in node
                    and not node.get("x-kubernetes-preserve-unknown-fields")):
                node["additionalProperties"] = False
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return schema


def _mpijob_errors(job):
    schema = _strict(json.loads((SCHEMAS / "mpijob-v2beta1.schema.json").read_text()))
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
            for e in jsonschema.Draft7Validator(schema).iter_errors(job)]


def test_mpijob_validates_against_the_mpi_operators_crd_schema():
    assert _mpijob_errors(_load("mpijob.json")) == []


def test_the_crd_schema_refuses_an_unknown_or_mistyped_field():
    job = _load("mpijob.json")
    job["spec"]["slotsPerWroker"] = 1
    job["spec"]["mpiReplicaSpecs"]["Worker"]["replicas"] = "4"
    errors = _mpijob_errors(job)
    assert any("slotsPerWroker" in e for e in errors), errors
    assert any("'4' is not of type 'integer'" in e for e in errors), errors


@pytest.mark.parametrize("index", range(len(_load("dynamic-cluster.json")["items"])))
def test_dynamic_cluster_items_validate_against_the_kubernetes_api_schema(index):
    manifest = _load("dynamic-cluster.json")
    assert (manifest["apiVersion"], manifest["kind"]) == ("v1", "List")
    kubernetes_validate.validate(manifest["items"][index], KUBERNETES_VERSION, strict=True)


def test_the_kubernetes_schema_refuses_an_unknown_field():
    job = next(i for i in _load("dynamic-cluster.json")["items"] if i["kind"] == "Job")
    job["spec"]["template"]["spec"]["containers"][0]["enviroment"] = []
    with pytest.raises(kubernetes_validate.ValidationError, match="enviroment"):
        kubernetes_validate.validate(job, KUBERNETES_VERSION, strict=True)
