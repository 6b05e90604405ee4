"""The field's sonar record formats, read and written: XTF side-scan, Oculus pings, GSF.

``xtf`` (with ``pyxtf``), ``oculus`` (the ``SimplePingResult`` message) and ``gsf`` (with
``gsfpy``, the reference C library's bindings). ``docs/realism.md``. No rclpy.
"""
