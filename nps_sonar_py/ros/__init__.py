"""The ROS 2 layer: nodes, parameters and message conversion. The only layer importing rclpy."""
