"""Functional forms of neural-network operators (ops.relu, ops.softmax, ops.conv2d …)."""
