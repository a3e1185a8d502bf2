from django.apps import AppConfig


class ApiConfig(AppConfig):
    name = "api"
    verbose_name = "REST API"

    def ready(self) -> None:
        from corsheaders.signals import check_request_enabled

        from api.cors import allow_listed_origin

        check_request_enabled.connect(allow_listed_origin, dispatch_uid="api.cors")
